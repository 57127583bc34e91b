// The node's event log: what happened to the node, for its operator (GridDB's "event log" under
// GS_LOG). One JSON record a line, written with pino to rotating files (event-log-file.ts):
//
//   {"level":"INFO","time":"2025-01-02T03:04:05.678Z","component":"systemService",
//    "version":"0.1.0","msg":"node started"}
//
// Each record has a level, a time (from the injected Clock), the component that wrote it (GridDB's
// trace categories: checkpointService, transactionService...) and a message, plus fields. Each
// component writes records at or above its own least level (`/trace/<category>`), which can be
// changed while the node runs (gs_logconf); components without one use `default`.

import { pino, type Logger } from 'pino';
import { isStorageError } from '../base/errors.ts';
import { EVENT_LOG_MESSAGE_LENGTH_MAX } from '../base/limits.ts';
import type { Clock } from './clock.ts';
import { EventLogFile, type EventLogFileOptions } from './event-log-file.ts';

/** GridDB's trace levels, most severe first. */
export const EVENT_LOG_LEVELS = [
  'LEVEL_CRITICAL', 'LEVEL_ERROR', 'LEVEL_WARNING', 'LEVEL_INFO', 'LEVEL_DEBUG',
] as const;

export type EventLogLevel = (typeof EVENT_LOG_LEVELS)[number];

const PINO_LEVELS = { critical: 60, error: 50, warning: 40, info: 30, debug: 20 } as const;
type PinoLevel = keyof typeof PINO_LEVELS;

const PINO_LEVEL_OF: Record<EventLogLevel, PinoLevel> = {
  LEVEL_CRITICAL: 'critical', LEVEL_ERROR: 'error', LEVEL_WARNING: 'warning',
  LEVEL_INFO: 'info', LEVEL_DEBUG: 'debug',
};

export type EventLogFields = Record<string, string | number | boolean | null | undefined>;

/** A record writer that knows an object with a `write(line)` method: a file, or a test's array. */
export interface EventLogDestination {
  write(line: string): void;
}

export interface EventLogOptions {
  clock: Clock;
  /** Least level per component; `default` for the rest. */
  levels: Readonly<Record<string, EventLogLevel>> & { default: EventLogLevel };
  /** Fields every record carries (the node's address, its process id). */
  base?: EventLogFields;
}

export interface ComponentLog {
  critical(message: string, fields?: EventLogFields): void;
  error(message: string, fields?: EventLogFields): void;
  warning(message: string, fields?: EventLogFields): void;
  info(message: string, fields?: EventLogFields): void;
  debug(message: string, fields?: EventLogFields): void;
}

export class EventLog {
  private readonly root: Logger<PinoLevel, boolean>;
  private readonly components = new Map<string, Logger<PinoLevel, boolean>>();
  private readonly levels: Map<string, EventLogLevel>;

  private constructor(options: EventLogOptions, private readonly destination: EventLogDestination,
    private readonly file: EventLogFile | undefined) {
    this.levels = new Map(Object.entries(options.levels));
    const { clock } = options;
    this.root = pino<PinoLevel, boolean>({
      customLevels: PINO_LEVELS,
      useOnlyCustomLevels: true,
      level: 'debug',
      base: options.base ?? null,
      timestamp: () => `,"time":"${new Date(clock.nowMs()).toISOString()}"`,
      formatters: { level: (label) => ({ level: label.toUpperCase() }) },
    }, this.destination);
  }

  /** An event log writing rotating files in `directory`. */
  static open(options: EventLogOptions & Omit<EventLogFileOptions, 'clock'>): EventLog {
    const file = new EventLogFile({ ...options });
    return new EventLog(options, file, file);
  }

  /** An event log writing to any destination (tests, stderr). */
  static to(destination: EventLogDestination, options: EventLogOptions): EventLog {
    return new EventLog(options, destination, undefined);
  }

  component(name: string): ComponentLog {
    const logger = this.componentLogger(name);
    const write = (level: PinoLevel) => (message: string, fields?: EventLogFields) => {
      logger[level](cutFields(fields), cut(message));
    };
    return {
      critical: write('critical'), error: write('error'), warning: write('warning'),
      info: write('info'), debug: write('debug'),
    };
  }

  levelOf(component: string): EventLogLevel {
    return this.levels.get(component) ?? this.levels.get('default') ?? 'LEVEL_ERROR';
  }

  /** Changes a component's least level from now on (gs_logconf). */
  setLevel(component: string, level: EventLogLevel): void {
    this.levels.set(component, level);
    const logger = this.components.get(component);
    if (logger !== undefined) logger.level = PINO_LEVEL_OF[level];
    if (component === 'default') {
      for (const [name, child] of this.components) child.level = PINO_LEVEL_OF[this.levelOf(name)];
    }
  }

  /** Every component with a least level of its own (`default` included), by name. */
  levelList(): Record<string, EventLogLevel> {
    return Object.fromEntries([...this.levels].sort(([a], [b]) => a.localeCompare(b)));
  }

  /** The whole lines in the last `bytesMax` bytes of the current file (none without a file). */
  tailLines(bytesMax: number): string[] {
    return this.file?.tailLines(bytesMax) ?? [];
  }

  /** Records lost to write errors (disk full); the log itself never throws them. */
  get droppedRecordCount(): number {
    return this.file?.droppedRecordCount ?? 0;
  }

  get currentPath(): string | undefined {
    return this.file?.currentPath;
  }

  // The node's events. Messages are fixed text; what varies is in the fields.

  nodeStarting(fields: EventLogFields): void {
    this.component('systemService').info('node starting', fields);
  }

  nodeStarted(fields: EventLogFields): void {
    this.component('systemService').info('node started', fields);
  }

  nodeStopping(fields: EventLogFields): void {
    this.component('systemService').info('node stopping', fields);
  }

  nodeStopped(fields: EventLogFields): void {
    this.component('systemService').info('node stopped', fields);
  }

  recoveryCompleted(fields: EventLogFields): void {
    this.component('recoveryManager').info('recovery completed', fields);
  }

  checkpointStarted(fields: EventLogFields): void {
    this.component('checkpointService').info('checkpoint started', fields);
  }

  checkpointCompleted(fields: EventLogFields): void {
    this.component('checkpointService').info('checkpoint completed', fields);
  }

  // Client connections, in the `connection` category (on by default); lib/node/connection-log.ts
  // bounds how many lines a second they write.

  /** A TCP connection to the transaction service was accepted, not yet authenticated. */
  connectionAccepted(fields: { address: string } & EventLogFields): void {
    this.component('connection').info('connection accepted', fields);
  }

  /** A client authenticated; its `applicationName` lets an operator tell clients apart. */
  clientConnected(fields: { applicationName: string; address: string; user: string } &
    EventLogFields): void {
    this.component('connection').info('client connected', fields);
  }

  clientDisconnected(fields: { address: string; reason: string; durationMs: number } &
    EventLogFields): void {
    this.component('connection').info('client disconnected', fields);
  }

  /** Connection lines left out for the bound of a window; one line per window at most. */
  connectionLinesSuppressed(fields: { suppressedCount: number; windowMs: number } &
    EventLogFields): void {
    this.component('connection').warning('connection log lines suppressed', fields);
  }

  /**
   * Fail-stop: the node stops at once on a broken invariant (status ABNORMAL). The record says
   * what failed, with its message and stack, and while doing what.
   */
  nodeAbnormal(error: unknown, fields: EventLogFields): void {
    this.component('systemService').critical('node status ABNORMAL: stopping at once', {
      ...fields, nodeStatus: 'ABNORMAL',
      error: error instanceof Error ? `${error.name}: ${error.message}` : String(error),
      stack: error instanceof Error ? error.stack : undefined,
    });
  }

  /** An error a component met: its code and message, and the stack of anything not expected. */
  error(component: string, error: unknown, fields: EventLogFields = {}): void {
    const details: EventLogFields = isStorageError(error)
      ? { code: error.code, errorNumber: error.errorNumber, error: error.message }
      : { error: error instanceof Error ? error.message : String(error),
        stack: error instanceof Error ? error.stack : undefined };
    this.component(component).error(isStorageError(error) ? error.message : 'unexpected error',
      { ...fields, ...details });
  }

  close(): void {
    this.file?.close();
  }

  private componentLogger(name: string): Logger<PinoLevel, boolean> {
    let logger = this.components.get(name);
    if (logger === undefined) {
      logger = this.root.child({ component: name }, { level: PINO_LEVEL_OF[this.levelOf(name)] });
      this.components.set(name, logger);
    }
    return logger;
  }
}

function cut(message: string): string {
  if (message.length <= EVENT_LOG_MESSAGE_LENGTH_MAX) return message;
  return `${message.slice(0, EVENT_LOG_MESSAGE_LENGTH_MAX)}... (${message.length} characters)`;
}

/** Client-supplied values (applicationName, a query's text) are cut like messages. */
function cutFields(fields: EventLogFields | undefined): EventLogFields {
  if (fields === undefined) return {};
  const result: EventLogFields = {};
  for (const [key, value] of Object.entries(fields)) {
    result[key] = typeof value === 'string' ? cut(value) : value;
  }
  return result;
}
