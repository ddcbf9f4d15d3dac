import type { Logger } from '@load-aware/assignor';
import { createAdminReader } from '../readers/admin-reader.js';
import { createClusterReader } from '../readers/kafkajs-cluster-reader.js';
import type { EndOffsetsReader, OwnedEndOffsetsReader } from '../readers/end-offsets-reader.js';
import { createInternalCluster } from '../readers/kafkajs-internals.js';
import { createPlatformaticAdminReader } from '../readers/platformatic-admin-reader.js';
import type { ResolvedClient } from '../config/options.js';
import type { TimeIndexReader } from '../base/time-index.js';

/**
 * How long the private cluster trusts its metadata when nothing went wrong: KafkaJS's default for
 * consumers. Errors (moved leader, unknown partition) force a refresh before the next sample.
 */
const METADATA_MAX_AGE_MS = 300_000;

/**
 * A reader for one run of the source, whether the source must close it, and its time-index
 * reader when it has one (only the private cluster: instant rates need the found record's
 * timestamp, which KafkaJS's admin API drops).
 */
export type SourceReader = (
  | { readonly owned: true; readonly reader: OwnedEndOffsetsReader }
  | { readonly owned: false; readonly reader: EndOffsetsReader; readonly kind: string }
) & { readonly timeIndex: TimeIndexReader | undefined };

/**
 * Picks the reader for the configured client. A `Kafka` gets a private cluster (one ListOffsets
 * per leader broker for all topics) or, if this KafkaJS hides it differently, an admin of its
 * own; both are closed by `stop()`. An admin or a reader from the caller is used as is and never
 * closed by the source (an admin's in-flight requests are still awaited); a platformatic admin
 * reads the time index too.
 */
export function createSourceReader(client: ResolvedClient, logger: Logger): SourceReader {
  switch (client.kind) {
    case 'kafka': {
      const cluster = createInternalCluster(client.kafka, METADATA_MAX_AGE_MS);
      if (cluster !== undefined) {
        const reader = createClusterReader(cluster, logger);
        return { owned: true, reader, timeIndex: reader };
      }
      logger.warn(
        {},
        'this KafkaJS has no private cluster factory; reading end offsets topic by topic through an admin client (two requests per broker per topic)',
      );
      return { owned: true, reader: createAdminReader(client.kafka.admin(), true, logger), timeIndex: undefined };
    }
    case 'admin':
      return { owned: true, reader: createAdminReader(client.admin, false, logger), timeIndex: undefined };
    case 'platformatic-admin': {
      const reader = createPlatformaticAdminReader(client.admin, logger);
      return { owned: true, reader, timeIndex: reader };
    }
    case 'reader':
      return { owned: false, reader: client.reader, kind: 'custom', timeIndex: undefined };
  }
}
