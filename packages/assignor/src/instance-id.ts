import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';

/**
 * One id per process, shared by every consumer created in it, so that the consumers of one pod
 * are balanced as one instance. The host name keeps logs readable; the random suffix keeps two
 * processes on one host (or a restarted pod) apart.
 */
export const processInstanceId: string = `${hostname().slice(0, 40)}-${String(process.pid)}-${randomBytes(3).toString('hex')}`;
