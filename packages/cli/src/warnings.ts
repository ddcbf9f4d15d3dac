/**
 * KafkaJS 2.2.4 arms a timer with a negative delay in its request queue; Node 24 reports that as a
 * `TimeoutNegativeWarning` on stderr (kafkajs#1751). It is harmless and says nothing the user can
 * act on, and a one-line CLI must keep stderr for its own messages. Every other warning is still
 * printed as Node prints it.
 */
export function printWarningsExceptKafkaJsTimeouts(): void {
  process.removeAllListeners('warning');
  process.on('warning', (warning) => {
    if (warning.name === 'TimeoutNegativeWarning') return;
    process.stderr.write(`(node:${String(process.pid)}) ${warning.name}: ${warning.message}\n`);
  });
}
