import type { Logger } from '@load-aware/assignor';

/** One recorded log call. */
export interface LogRecord {
  level: 'debug' | 'info' | 'warn' | 'error';
  fields: Record<string, unknown>;
  /** The message, `''` when the call passed none. */
  message: string;
}

/** A {@link Logger} that keeps every call, for asserting on log lines. */
export type RecordingLogger = Logger & {
  readonly records: LogRecord[];
  /** The messages logged at `level`, in order. */
  messages(level: LogRecord['level']): string[];
};

/** A logger that keeps everything it is given. */
export function recordingLogger(): RecordingLogger {
  const records: LogRecord[] = [];
  const at =
    (level: LogRecord['level']) =>
    (fields: Record<string, unknown>, message?: string): void => {
      records.push({ level, fields, message: message ?? '' });
    };
  return {
    records,
    debug: at('debug'),
    info: at('info'),
    warn: at('warn'),
    error: at('error'),
    messages: (level) => records.filter((r) => r.level === level).map((r) => r.message),
  };
}
