import { explain } from './explain.js';
import type { BalanceResult, TopicPartition } from '../core/types.js';
import type { Logger } from '../base/logger.js';
import { escapeLogText } from '../base/log-text.js';

/**
 * Writes the leader's explanation of a load-aware assignment: a summary line, one
 * line per instance, the skew against an even split, the max load against the lower bound, what
 * stickiness moved, and the unevenness factors at INFO; the member-by-member table at DEBUG.
 * Returns the skew ratios (group only, and combined with the base loads) for the metrics. `logger` carries the `groupId` (see `bindLogger`).
 * Instance and member ids are other members' choice: message text escapes them (see
 * `escapeLogText`), fields carry them raw.
 */
export function logAssignment(
  logger: Logger,
  result: BalanceResult,
  defaultWeight: number,
  durationMs: number,
  owners?: { readonly reportingMembers: number; readonly rememberedMembers: number },
): {
  readonly skewRatio: number;
  readonly combinedSkewRatio: number;
  /** Undefined when no instance has a rack. */
  readonly racks: { readonly share: number; readonly lowerBound: number } | undefined;
} {
  const e = explain(result, defaultWeight);
  logger.info(
    {
      result: 'load_aware',
      instances: result.instances.length,
      members: result.members.length,
      partitions: result.partitionCount,
      totalWeight: result.totalWeight,
      defaulted: result.defaultedCount,
      durationMs,
    },
    escapeLogText(`load-aware assignment: ${e.summary}`),
  );
  for (const [index, line] of e.instanceLines.entries()) {
    const instance = result.instances[index]!;
    logger.info(
      {
        instanceId: instance.instanceId,
        load: instance.load,
        ...(e.combinedSkew === undefined ? {} : { baseLoad: instance.baseLoad, combinedLoad: instance.combinedLoad }),
        partitions: instance.partitionCount,
        members: instance.memberIds.length,
      },
      escapeLogText(line),
    );
  }
  logger.info({ maxInstanceLoad: result.maxInstanceLoad, idealLoad: result.idealLoad, skewRatio: e.skewRatio }, e.skew);
  if (e.combinedSkew !== undefined) {
    logger.info(
      {
        maxCombinedLoad: result.maxCombinedLoad,
        idealCombinedLoad: result.idealCombinedLoad,
        combinedSkewRatio: e.combinedSkewRatio,
      },
      e.combinedSkew,
    );
  }
  logger.info(
    {
      maxInstanceLoad: result.maxInstanceLoad,
      maxCombinedLoad: result.maxCombinedLoad,
      lowerBound: result.lowerBound,
      optimalityRatio: result.optimalityRatio,
    },
    e.optimality,
  );
  logger.info(
    {
      moved: result.movedCount,
      forcedMoves: result.forcedMoveCount,
      previouslyOwned: result.previouslyOwnedCount,
      // Where `previous` came from: members' own reports, or this process's memory of them.
      ownersReportedBy: owners?.reportingMembers,
      ownersRememberedFor: owners?.rememberedMembers,
    },
    e.moves,
  );
  if (e.racks !== undefined) {
    logger.info(
      {
        crossRackWeight: result.crossRackWeight,
        crossRackPartitions: result.crossRackPartitions,
        crossRackForcedWeight: result.crossRackForcedWeight,
        crossRackLowerBound: result.crossRackLowerBound,
        crossRackShare: e.crossRackShare,
      },
      e.racks,
    );
  }
  if (e.factors.length > 0) {
    logger.info(
      { factors: e.factors.map((f) => f.code) },
      escapeLogText(`unevenness factors: ${e.factors.map((f) => f.text).join('; ')}`),
    );
  }
  for (const line of e.memberLines) logger.debug({}, escapeLogText(line));
  return {
    skewRatio: e.skewRatio,
    combinedSkewRatio: e.combinedSkewRatio,
    racks: e.racks === undefined ? undefined : { share: e.crossRackShare, lowerBound: e.crossRackShareLowerBound },
  };
}

/** The INFO line after a fallback: how many partitions each instance got. */
export function logFallback(
  logger: Logger,
  assignments: ReadonlyMap<string, ReadonlyArray<TopicPartition>>,
  instanceOf: ReadonlyMap<string, string>,
  durationMs: number,
): void {
  // No prototype: instance ids are arbitrary strings from other members ("constructor" included).
  const perInstance = Object.create(null) as Record<string, number>;
  for (const [memberId, partitions] of assignments) {
    const instance = instanceOf.get(memberId) ?? memberId;
    perInstance[instance] = (perInstance[instance] ?? 0) + partitions.length;
  }
  const text = Object.entries(perInstance)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([instance, n]) => `${instance}=${String(n)}`)
    .join(', ');
  logger.info(
    { result: 'fallback', partitionsPerInstance: perInstance, durationMs },
    escapeLogText(`round-robin fallback assignment: partitions per instance ${text}`),
  );
}
