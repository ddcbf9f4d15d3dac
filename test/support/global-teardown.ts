import { CLUSTER_KEY, type GlobalWithKafka } from './global-setup';

/** Jest global teardown of the integration project: stops the broker global setup started. */
export default async function globalTeardown(): Promise<void> {
  const holder = globalThis as GlobalWithKafka;
  const cluster = holder[CLUSTER_KEY];
  holder[CLUSTER_KEY] = undefined;
  await cluster?.stop();
}
