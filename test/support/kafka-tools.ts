import { execFile } from 'node:child_process';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { resolveKafkaToolsJars } from './kafka-jars';

const execFileAsync = promisify(execFile);

/** One partition row of `kafka-consumer-groups.sh --describe`. */
export interface DescribedPartition {
  readonly topic: string;
  readonly partition: number;
  /** The group's committed offset; undefined for `-`. */
  readonly currentOffset: number | undefined;
  readonly logEndOffset: number;
  /** undefined for `-`. */
  readonly lag: number | undefined;
  /** The owning member, `-` for none. */
  readonly consumerId: string;
  readonly clientId: string;
}

/** One row of `--describe --members --verbose`. */
export interface DescribedMember {
  readonly consumerId: string;
  /** The GROUP-INSTANCE-ID column, shown only for groups with static members. */
  readonly groupInstanceId: string | undefined;
  readonly clientId: string;
  /**
   * "topic:partition" labels, from the ASSIGNMENT column; the topic is empty where the tool does
   * not print it (Kafka 3.9 shows `(0,3)`).
   */
  readonly assignment: string[];
}

/** `--describe --state`: the group's protocol ("ASSIGNMENT-STRATEGY"), state and member count. */
export interface DescribedState {
  readonly assignmentStrategy: string;
  readonly state: string;
  readonly members: number;
}

/**
 * Kafka's own `ConsumerGroupCommand` (what `kafka-consumer-groups.sh` runs), from the `kafka-tools`
 * jar of the broker's version, fetched with Maven into the same cache as the broker.
 */
export interface KafkaTools {
  describeOffsets(groupId: string): Promise<DescribedPartition[]>;
  describeMembers(groupId: string): Promise<DescribedMember[]>;
  describeState(groupId: string): Promise<DescribedState>;
}

/** The tools of Kafka `version`, talking to `brokers`. */
export async function kafkaTools(brokers: ReadonlyArray<string>, version: string): Promise<KafkaTools> {
  const cacheDir = process.env['LOAD_AWARE_CACHE'] ?? join(homedir(), '.cache', 'load-aware');
  const toolsDir = await resolveKafkaToolsJars(version, cacheDir, () => undefined);
  const run = async (groupId: string, ...flags: string[]): Promise<string[][]> => {
    const { stdout } = await execFileAsync(
      'java',
      [
        '-Xmx256m',
        '-cp',
        `${toolsDir}/*`,
        'org.apache.kafka.tools.consumer.group.ConsumerGroupCommand',
        '--bootstrap-server',
        brokers.join(','),
        '--describe',
        '--group',
        groupId,
        // The tool's own default (5 s) is short for a JVM starting on a loaded 2-core machine.
        '--timeout',
        '30000',
        ...flags,
      ],
      { timeout: 90_000, maxBuffer: 8 * 1024 * 1024 },
    );
    return tableRows(stdout);
  };
  return {
    async describeOffsets(groupId) {
      return (await run(groupId)).map((row) => ({
        topic: column(row, 'TOPIC'),
        partition: Number(column(row, 'PARTITION')),
        currentOffset: numberOrUndefined(column(row, 'CURRENT-OFFSET')),
        logEndOffset: Number(column(row, 'LOG-END-OFFSET')),
        lag: numberOrUndefined(column(row, 'LAG')),
        consumerId: column(row, 'CONSUMER-ID'),
        clientId: column(row, 'CLIENT-ID'),
      }));
    },
    async describeMembers(groupId) {
      return (await run(groupId, '--members', '--verbose')).map((row) => ({
        consumerId: column(row, 'CONSUMER-ID'),
        groupInstanceId: optionalColumn(row, 'GROUP-INSTANCE-ID'),
        clientId: column(row, 'CLIENT-ID'),
        // Kafka 4.x names it CURRENT-ASSIGNMENT (beside a target for KIP-848 groups).
        assignment: parseAssignment(optionalColumn(row, 'ASSIGNMENT') ?? column(row, 'CURRENT-ASSIGNMENT')),
      }));
    },
    async describeState(groupId) {
      const [row] = await run(groupId, '--state');
      if (row === undefined) throw new Error(`--state printed no row for ${groupId}`);
      return {
        assignmentStrategy: column(row, 'ASSIGNMENT-STRATEGY'),
        state: column(row, 'STATE'),
        members: Number(column(row, '#MEMBERS')),
      };
    },
  };
}

/** Rows as header → value records, one per line after the header (blank lines skipped). */
type Row = string[] & { header?: string[] };

function tableRows(stdout: string): string[][] {
  const lines = stdout.split('\n').filter((l) => l.trim() !== '' && !l.startsWith('Consumer group'));
  const headerAt = lines.findIndex((l) => /^GROUP\s/.test(l));
  if (headerAt < 0) throw new Error(`no table in ConsumerGroupCommand output:\n${stdout}`);
  const header = lines[headerAt]!.trim().split(/\s+/);
  return lines
    .slice(headerAt + 1)
    .filter((l) => !/^GROUP\s/.test(l))
    .map((l) => {
      // Cells hold no spaces while a group consumes one topic (an assignment is `topic(0,2)`).
      const row: Row = l.trim().split(/\s+/);
      if (row.length !== header.length)
        throw new Error(`a row of ${String(row.length)} cells under ${header.join(' ')}: ${l}`);
      row.header = header;
      return row;
    });
}

function optionalColumn(row: string[], name: string): string | undefined {
  const at = ((row as Row).header ?? []).indexOf(name);
  return at < 0 ? undefined : (row[at] ?? '');
}

function column(row: string[], name: string): string {
  const cell = optionalColumn(row, name);
  if (cell === undefined) throw new Error(`no column ${name} in ${((row as Row).header ?? []).join(' ')}`);
  return cell;
}

function numberOrUndefined(cell: string): number | undefined {
  return cell === '-' ? undefined : Number(cell);
}

/**
 * An assignment cell as a list of "topic:partition" labels: `orders(0,2)` (Kafka 3.9) or
 * `orders:0,2` (Kafka 4.x, topics joined by `;`), `-` for none.
 */
function parseAssignment(cell: string): string[] {
  if (cell === '-' || cell === '') return [];
  const labels: string[] = [];
  const add = (topic: string, partitions: string) => {
    for (const p of partitions.split(',').filter((x) => x !== '')) labels.push(`${topic}:${p}`);
  };
  if (cell.includes('(')) {
    // Kafka 3.9's tool prints no topic before the parentheses: the label keeps an empty one.
    for (const match of cell.matchAll(/([^\s,()]*)\(([\d,]*)\)/g)) add(match[1] ?? '', match[2] ?? '');
    return labels;
  }
  for (const part of cell.split(';')) {
    const at = part.lastIndexOf(':');
    add(part.slice(0, at), part.slice(at + 1));
  }
  return labels;
}
