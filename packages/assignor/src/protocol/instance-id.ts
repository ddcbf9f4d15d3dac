import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';

/**
 * One id per process, shared by every consumer created in it, so that the consumers of one pod
 * are balanced as one instance. The host name keeps logs readable; the random suffix keeps two
 * processes on one host (or a restarted pod) apart.
 */
export const processInstanceId: string = `${hostname().slice(0, 40)}-${String(process.pid)}-${randomBytes(3).toString('hex')}`;

/**
 * A random id of this process, sent with every JoinGroup (userData version 3): the same for all
 * consumers created here, different in any other process. The leader uses it to notice two
 * processes configured with one instance id (a copy-pasted pod spec), which would otherwise be
 * balanced as one instance without a word. Random rather than host and pid: those repeat across
 * containers.
 */
export const processToken: string = randomBytes(8).toString('hex');
