import { bindLogger, ERROR_CODES, type Logger } from '@load-aware/assignor/portable';
import { UnsafeConsumeModeError } from './errors.js';

/**
 * Where a platformatic stream starts a partition it is handed, and why only one choice is safe in
 * a group whose partitions move.
 *
 * Platformatic 2.12's `MessagesStream` keeps one fetch position per partition of its topics. At
 * each group join it lists the topics' offsets and records a position only for a partition it
 * has none for yet; in mode `committed` it then overwrites the positions of the partitions it
 * owns with the group's committed offsets. In modes `latest` and `earliest` nothing overwrites
 * them: a partition handed to a stream later starts from whatever the stream recorded earlier
 * (the log end when the stream was created, offset 0, or where the stream stopped when it last
 * owned the partition), not from where its previous owner got to. It repeats what was processed,
 * or skips what was not. `manual` seeds positions once and then behaves like `latest`.
 *
 * So every stream of a consumer in a load-aware group consumes with `mode: 'committed'`. The
 * fallback applies to a partition with no committed offset yet: `earliest` re-reads it from the
 * start (duplicates, never a gap); `latest` can skip what a previous owner read but had not
 * committed yet, so it is allowed with a WARN; `fail` is allowed.
 */

/** The consume options the guard reads; the rest pass through unchanged. */
export interface GuardedConsumeOptions {
  mode?: unknown;
  fallbackMode?: unknown;
  autocommit?: unknown;
}

/** The consume mode that resumes a moved partition from the group's committed offset. */
export const SAFE_CONSUME_MODE = 'committed';
/** The fallback for a partition with no committed offset that can only repeat, never skip. */
export const SAFE_FALLBACK_MODE = 'earliest';

/**
 * `options` with the safe mode and fallback filled in where the caller left them out. Throws an
 * {@link UnsafeConsumeModeError} for a mode that starts moved partitions from a stale position.
 * Calls `warn` for a fallback that can skip uncommitted messages of a partition's first owner.
 */
export function withSafeConsumeMode<T extends GuardedConsumeOptions>(
  options: T,
  warn: (fallbackMode: string) => void,
): T & { mode: string; fallbackMode: string } {
  const mode = options.mode ?? SAFE_CONSUME_MODE;
  if (mode !== SAFE_CONSUME_MODE) throw new UnsafeConsumeModeError(describe(mode));
  const fallbackMode = options.fallbackMode ?? SAFE_FALLBACK_MODE;
  if (fallbackMode === 'latest') warn(fallbackMode);
  // Platformatic validates the fallback itself; an unknown one reaches its own error unchanged.
  return { ...options, mode: SAFE_CONSUME_MODE, fallbackMode: fallbackMode as string };
}

/** A mode as the error message shows it: strings as they are, anything else as JSON. */
function describe(mode: unknown): string {
  if (typeof mode === 'string') return mode;
  // undefined for a function or a symbol, whatever its declared type says.
  const json = JSON.stringify(mode) as string | undefined;
  return json ?? typeof mode;
}

/** The part of a platformatic `Consumer` the guard wraps. */
export interface ConsumingConsumer {
  readonly groupId: string;
  /** The partitions this consumer owns now, per topic; null before its first assignment. */
  readonly assignments: ReadonlyArray<{ readonly topic: string; readonly partitions: ReadonlyArray<number> }> | null;
  consume(options: GuardedConsumeOptions, callback?: (error: Error | null, stream?: unknown) => void): unknown;
}

/**
 * Replaces `consumer.consume` with one that applies {@link withSafeConsumeMode} first: a refused
 * mode rejects the returned promise (or reaches the callback) with the error, and logs it as an
 * ERROR. The stream it answers is filtered by {@link filterDeliveries}; streams consumed with
 * manual commits (`autocommit: false`, from the call or from the consumer's options) also drop
 * the messages of partitions the consumer no longer owns.
 */
export function guardConsume(
  consumer: ConsumingConsumer,
  consumerOptions: { autocommit?: unknown },
  logger: Logger,
): void {
  const original = consumer.consume.bind(consumer);
  const log = (): Logger => bindLogger(logger, { component: 'assignor', groupId: consumer.groupId });
  const guarded = (options: GuardedConsumeOptions, callback?: (error: Error | null, stream?: unknown) => void) => {
    let safe: GuardedConsumeOptions;
    try {
      safe = withSafeConsumeMode(options, (fallbackMode) => {
        log().warn(
          { code: ERROR_CODES.platformatic.unsafeConsumeMode, fallbackMode },
          `consume({ fallbackMode: '${fallbackMode}' }): a partition with no committed offset yet that changes owner ` +
            "starts at the new owner's recorded log end, skipping what its first owner read without committing; " +
            "use fallbackMode: 'earliest' for at-least-once",
        );
      });
    } catch (err) {
      // withSafeConsumeMode throws nothing else.
      const refused = err as UnsafeConsumeModeError;
      log().error({ err: refused, code: refused.code }, refused.message);
      if (callback !== undefined) {
        callback(refused);
        return undefined;
      }
      return Promise.reject(refused);
    }
    const dropRevoked = (safe.autocommit ?? consumerOptions.autocommit ?? true) === false;
    const filter = (stream: unknown): unknown => {
      if (isFilterable(stream)) filterDeliveries(stream, consumer, { dropRevoked });
      return stream;
    };
    if (callback !== undefined) {
      return original(safe, (error, stream) => {
        callback(error, error === null ? filter(stream) : stream);
      });
    }
    return (original(safe) as Promise<unknown>).then(filter);
  };
  (consumer as { consume: ConsumingConsumer['consume'] }).consume = guarded;
}

/** A readable stream as {@link filterDeliveries} patches it. */
export interface FilterableStream {
  read(size?: number): unknown;
  emit(event: string | symbol, ...args: unknown[]): boolean;
}

function isFilterable(stream: unknown): stream is FilterableStream {
  return (
    typeof stream === 'object' &&
    stream !== null &&
    typeof (stream as FilterableStream).read === 'function' &&
    typeof (stream as FilterableStream).emit === 'function'
  );
}

/**
 * Makes `stream` hand its reader each offset at most once while its consumer keeps the
 * partition, and, with `dropRevoked`, no message of a partition the consumer no longer owns.
 *
 * - **Once per ownership.** In mode `committed` platformatic moves every owned partition back to
 *   its committed offset at each group join, while the messages fetched before it are still in the
 *   stream's buffer (up to `highWaterMark`). A member that keeps its partitions would get the
 *   buffered messages, then the same ones again. What this stream already handed out is skipped;
 *   the memory of a partition ends when the consumer stops owning it.
 * - **Revoked partitions.** The buffer also keeps the messages of a partition that a rebalance
 *   took away, and platformatic keeps handing them out while the new owner starts from the
 *   committed offset. With manual commits nothing past the last processed message is committed, so
 *   dropping them loses nothing (the new owner reads them) and stops two members processing one
 *   partition at once. With autocommit the commit covers what was fetched, so they must be
 *   processed where they are: those streams keep them.
 *
 * Both ways a Readable hands out a message are covered: `read()` (async iteration and `readable`
 * listeners) and the `data` event (flowing mode, which emits from inside `read()` and on push).
 */
export function filterDeliveries(
  stream: FilterableStream,
  consumer: Pick<ConsumingConsumer, 'assignments'>,
  options: { dropRevoked: boolean },
): void {
  /** "topic:partition" → the highest offset handed out during the current ownership. */
  const delivered = new Map<string, bigint>();
  // The owned "topic:partition" keys, rebuilt only when platformatic replaces its assignments:
  // every message is checked against them, so the check must not walk the assignment lists.
  let seenAssignments: ConsumingConsumer['assignments'] = null;
  let ownedKeys = new Set<string>();
  const owned = (key: string): boolean => {
    const assignments = consumer.assignments;
    if (assignments === null) return true;
    if (assignments !== seenAssignments) {
      seenAssignments = assignments;
      ownedKeys = new Set(assignments.flatMap((a) => a.partitions.map((p) => `${a.topic}:${String(p)}`)));
      for (const k of delivered.keys()) if (!ownedKeys.has(k)) delivered.delete(k);
    }
    return ownedKeys.has(key);
  };
  /** Whether `message` goes to the reader; records it as handed out when it does. */
  const passes = (message: unknown): boolean => {
    if (typeof message !== 'object' || message === null) return true;
    const { topic, partition, offset } = message as { topic?: unknown; partition?: unknown; offset?: unknown };
    if (typeof topic !== 'string' || typeof partition !== 'number') return true;
    const key = `${topic}:${String(partition)}`;
    if (!owned(key)) return !options.dropRevoked;
    if (typeof offset !== 'bigint' && typeof offset !== 'number') return true;
    const at = BigInt(offset);
    const last = delivered.get(key);
    if (last !== undefined && at <= last) return false;
    delivered.set(key, at);
    return true;
  };
  // read() decides for both paths: flowing mode emits 'data' from inside it, with the same message.
  let decided: { message: unknown; passes: boolean } | undefined;
  const read = stream.read.bind(stream);
  const emit = stream.emit.bind(stream);
  stream.read = (size?: number): unknown => {
    for (;;) {
      decided = undefined;
      const message = read(size);
      if (message === null) return message;
      // Set by the 'data' emit inside read(), which TypeScript's flow analysis cannot see.
      const emitted = decided as { message: unknown; passes: boolean } | undefined;
      const verdict = emitted !== undefined && emitted.message === message ? emitted.passes : passes(message);
      decided = undefined;
      if (verdict) return message;
    }
  };
  stream.emit = (event: string | symbol, ...args: unknown[]): boolean => {
    if (event !== 'data') return emit(event, ...args);
    decided = { message: args[0], passes: passes(args[0]) };
    return decided.passes ? emit(event, ...args) : false;
  };
}
