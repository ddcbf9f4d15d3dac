/**
 * The broker's side of a rolling restart, for the benchmark's local broker: the test support
 * starts Kafka logging at WARN, where the group coordinator says nothing, so the benchmark turns
 * the coordinator's loggers up to INFO at run time (KIP-412, IncrementalAlterConfigs on a
 * BROKER_LOGGER resource; KafkaJS's admin has no such call, hence the hand-built request on a
 * plain socket to the loopback broker) and afterwards reads, per group, why the broker
 * rebalanced. Diagnostics only: a broker that refuses leaves the run as it was.
 */
import { Socket } from 'node:net';
import { ConfigResourceTypes, type Admin } from 'kafkajs';

/**
 * The group coordinators' loggers: `kafka.coordinator.group.*` (Kafka 3.x's classic one) and
 * `org.apache.kafka.coordinator.group.*` (the new one of 4.x, which runs classic groups too).
 */
const COORDINATOR_LOGGER = /(^|\.)coordinator\.group\./;

const INCREMENTAL_ALTER_CONFIGS = 44;
const BROKER_LOGGER = 8;
const SET = 0;
const REQUEST_TIMEOUT_MS = 5000;

function str(s: string): Buffer {
  const body = Buffer.from(s, 'utf8');
  const len = Buffer.alloc(2);
  len.writeInt16BE(body.length);
  return Buffer.concat([len, body]);
}

function int(n: number, bytes: 1 | 2 | 4): Buffer {
  const b = Buffer.alloc(bytes);
  if (bytes === 1) b.writeInt8(n);
  else if (bytes === 2) b.writeInt16BE(n);
  else b.writeInt32BE(n);
  return b;
}

/** IncrementalAlterConfigs v0 (not flexible): SET `logger` to `level` on broker `nodeId`. */
function request(nodeId: number, logger: string, level: string, correlationId: number): Buffer {
  const body = Buffer.concat([
    int(INCREMENTAL_ALTER_CONFIGS, 2),
    int(0, 2),
    int(correlationId, 4),
    str('load-aware-bench-rolling'),
    int(1, 4),
    int(BROKER_LOGGER, 1),
    str(String(nodeId)),
    int(1, 4),
    str(logger),
    int(SET, 1),
    str(level),
    int(0, 1),
  ]);
  return Buffer.concat([int(body.length, 4), body]);
}

/** The first resource's error code and message of an IncrementalAlterConfigs v0 response. */
function parse(frame: Buffer): { errorCode: number; message: string | null } {
  // correlation id (4), throttle time (4), array length (4), then the first response.
  const errorCode = frame.readInt16BE(12);
  const len = frame.readInt16BE(14);
  return { errorCode, message: len < 0 ? null : frame.subarray(16, 16 + len).toString('utf8') };
}

/** Sends one request and resolves with the response frame (without its length prefix). */
function roundTrip(host: string, port: number, payload: Buffer): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const socket = new Socket();
    let data = Buffer.alloc(0);
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`no answer from ${host}:${String(port)} in ${String(REQUEST_TIMEOUT_MS)} ms`));
    }, REQUEST_TIMEOUT_MS);
    socket.on('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
    socket.on('data', (chunk: Buffer) => {
      data = Buffer.concat([data, chunk]);
      if (data.length >= 4 && data.length >= 4 + data.readInt32BE(0)) {
        clearTimeout(timer);
        socket.destroy();
        resolve(data.subarray(4, 4 + data.readInt32BE(0)));
      }
    });
    socket.connect(port, host, () => {
      socket.write(payload);
    });
  });
}

/**
 * Sets each of `loggers` to `level` on one broker (a separate request each: the broker refuses
 * a logger it has not created, and would refuse the others of the same request with it).
 * Resolves with logger → null when set, or the broker's error.
 */
export async function setBrokerLoggers(
  broker: { host: string; port: number; nodeId: number },
  loggers: readonly string[],
  level = 'INFO',
): Promise<Record<string, string | null>> {
  const out: Record<string, string | null> = {};
  for (const [i, logger] of loggers.entries()) {
    try {
      const answer = parse(await roundTrip(broker.host, broker.port, request(broker.nodeId, logger, level, i + 1)));
      out[logger] = answer.errorCode === 0 ? null : `error ${String(answer.errorCode)}: ${answer.message ?? ''}`;
    } catch (err) {
      out[logger] = err instanceof Error ? err.message : String(err);
    }
  }
  return out;
}

/**
 * Turns the group coordinator's loggers of broker `nodeId` up to INFO. A logger exists only once
 * its class was loaded (4.x: once the group coordinator served a group), so call it after the
 * group formed; the names come from DescribeConfigs on the BROKER_LOGGER resource. Resolves with
 * what {@link setBrokerLoggers} answered; an empty object when the broker listed none.
 */
export async function raiseCoordinatorLogging(
  admin: Admin,
  broker: { host: string; port: number; nodeId: number },
): Promise<Record<string, string | null>> {
  const described = await admin.describeConfigs({
    resources: [{ type: ConfigResourceTypes.BROKER_LOGGER, name: String(broker.nodeId) }],
    includeSynonyms: false,
  });
  const names = (described.resources[0]?.configEntries ?? [])
    .map((e) => e.configName)
    .filter((name) => COORDINATOR_LOGGER.test(name));
  return setBrokerLoggers(broker, names);
}

/** One "Preparing to rebalance" line of the broker. */
export interface BrokerRebalance {
  /** Seconds since `t0` (the log's local time stamp); null when it has none. */
  t: number | null;
  reason: string;
}

/** What the broker's log says about one group. */
export interface GroupLog {
  groupId: string;
  /** Every line naming the group. */
  lines: string[];
  /** Its "Preparing to rebalance" lines, in order. */
  rebalances: BrokerRebalance[];
  /** Generations the broker completed ("Stabilized group ... generation N"). */
  stabilized: number[];
}

/** A log line's `[yyyy-MM-dd HH:mm:ss,SSS]` stamp, in the machine's time zone (the broker's too), as ms. */
function stampOf(line: string): number | undefined {
  const m = /^\[(\d{4})-(\d\d)-(\d\d) (\d\d):(\d\d):(\d\d),(\d{3})\]/.exec(line);
  if (m === null) return undefined;
  const [y, mo, d, h, mi, s, ms] = m.slice(1).map(Number) as [number, number, number, number, number, number, number];
  return new Date(y, mo - 1, d, h, mi, s, ms).getTime();
}

/**
 * The lines of `log` naming `groupId`, and the reason the broker gave for each rebalance (the
 * text of `(reason: ...)` before the logger's name closing the line), timed from `t0` (ms).
 */
export function groupLog(log: string, groupId: string, t0: number): GroupLog {
  const lines = log.split('\n').filter((l) => l.includes(groupId));
  const rebalances = lines
    .filter((l) => /Preparing to rebalance/i.test(l))
    .map((l) => {
      const at = stampOf(l);
      const reason = /\(reason: (.*?)\)\.?\s*\([\w.$]+\)\s*$/.exec(l)?.[1] ?? l;
      return { t: at === undefined ? null : Math.round((at - t0) / 100) / 10, reason };
    });
  const stabilized = lines.flatMap((l) => {
    const m = /Stabilized group \S+ generation (\d+)/.exec(l);
    return m === null ? [] : [Number(m[1])];
  });
  return { groupId, lines, rebalances, stabilized };
}
