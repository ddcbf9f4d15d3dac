import type { Cluster } from 'kafkajs';
import type { Logger } from '../base/logger.js';
import type { OwnAssignment } from './own-assignment.js';
import type { StaticMember } from './static-membership.js';
import { loadWire, type WireBroker } from './wire.js';

/** What a JoinGroup sent on a consumer's behalf needs from the assigner. */
export interface BackgroundJoinSettings {
  readonly groupId: string;
  readonly own: OwnAssignment;
  readonly staticMember: StaticMember | undefined;
  /** The protocol name whose metadata is replaced by the current one. */
  readonly protocolName: string;
  /** The consumer's current JoinGroup metadata; undefined before its first JoinGroup. */
  readonly metadataNow: () => Buffer | undefined;
  /** Makes the consumer rejoin itself: for a fire that could not be sent. */
  readonly rejoinInstead: () => void;
  /** Called when no side connection could be opened (the seam's `Connection` internal). */
  readonly connectionMissing: () => void;
  readonly logger: Logger;
}

/**
 * A way to start a group-wide rebalance without stopping this consumer first: a JoinGroup with
 * the consumer's current metadata, sent on its behalf on a connection of its own. Held at the
 * join barrier on the consumer's connection, that request would hold the consumer's heartbeats
 * and commits behind it, and the member would stop at once. Returns false when it cannot be sent
 * (no JoinGroup yet, no KafkaJS internals): the caller rejoins instead.
 */
export function backgroundJoinThrough(cluster: Cluster, settings: BackgroundJoinSettings): () => boolean {
  const { groupId, own, staticMember, logger } = settings;
  return () => {
    const request = own.lastJoinRequest();
    const metadata = settings.metadataNow();
    const wire = loadWire();
    if (request === undefined || metadata === undefined || request.memberId === '' || wire === undefined) return false;
    const fields = {
      ...request,
      protocolType: request.protocolType ?? 'consumer',
      groupProtocols: request.groupProtocols.map((p) =>
        p.name === settings.protocolName ? { name: p.name, metadata } : p,
      ),
      groupInstanceId: staticMember?.groupInstanceId ?? null,
    };
    let sent = false;
    void (async () => {
      const coordinator = (await cluster.findGroupCoordinator({ groupId })) as unknown as WireBroker;
      const side = wire.sideConnection(coordinator);
      if (side === undefined) {
        settings.connectionMissing();
        throw new Error('no connection settings to copy');
      }
      try {
        const joinRequest = wire.build(coordinator, 'JoinGroup', fields);
        await side.open();
        sent = true;
        await side.send(joinRequest);
      } finally {
        await side.close().catch(() => undefined);
      }
    })().catch((err: unknown) => {
      // Once sent, no answer is the normal end: the consumer's own JoinGroup took this one's place
      // at the barrier. Not sent (no coordinator, no connection), the fire must not be lost.
      logger.debug({ err, sent }, 'background JoinGroup ended without an answer');
      if (!sent) settings.rejoinInstead();
    });
    return true;
  };
}
