import { mkdtemp, readdir, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { recordedLiveProcesses } from './kafka-process';

const PREFIX = 'load-aware-kafka-';
/** Present only in dirs nobody asked to keep, so a sweep never deletes logs kept on purpose. */
const EPHEMERAL_MARKER = '.load-aware-ephemeral';

/**
 * Creates a fresh work dir under the OS temp dir, marked as safe to delete once abandoned.
 * `stop()` removes it; the mark lets a later run clean up after a run that crashed first.
 */
export async function createEphemeralWorkDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), PREFIX));
  await writeFile(join(dir, EPHEMERAL_MARKER), `${String(process.pid)}\n`);
  return dir;
}

/**
 * Deletes ephemeral work dirs left behind by interrupted runs: older than `minAgeMs` and with no
 * live process recorded in them. Test files inside jest cannot react to signals (jest gives them a
 * copy of `process`), so this is how their temp dirs eventually go. Returns the dirs removed.
 */
export async function sweepAbandonedWorkDirs(minAgeMs = 10 * 60_000): Promise<string[]> {
  const removed: string[] = [];
  const root = tmpdir();
  const names = (await readdir(root).catch(() => [])).filter((name) => name.startsWith(PREFIX));
  for (const name of names) {
    const dir = join(root, name);
    const marker = await stat(join(dir, EPHEMERAL_MARKER)).catch(() => undefined);
    const abandoned =
      marker !== undefined && Date.now() - marker.mtimeMs > minAgeMs && (await recordedLiveProcesses(dir)).length === 0;
    if (abandoned) {
      await rm(dir, { recursive: true, force: true });
      removed.push(dir);
    }
  }
  return removed;
}
