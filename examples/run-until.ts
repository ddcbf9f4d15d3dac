/**
 * Shared by the examples: runs until Ctrl-C, or for `EXAMPLE_DURATION_MS` when set (the tests
 * run every example for a few seconds against a local broker), then calls `stop`.
 */
export async function runUntilStopped(stop: () => Promise<void>): Promise<void> {
  const durationMs = Number(process.env['EXAMPLE_DURATION_MS'] ?? 0);
  await new Promise<void>((resolve) => {
    process.once('SIGINT', resolve);
    process.once('SIGTERM', resolve);
    if (durationMs > 0) setTimeout(resolve, durationMs);
  });
  await stop();
}

/** Brokers from `BROKERS` (comma-separated), default `localhost:9092`. */
export function brokersFromEnv(): string[] {
  return (process.env['BROKERS'] ?? 'localhost:9092').split(',');
}
