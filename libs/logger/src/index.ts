import { AsyncLocalStorage } from 'node:async_hooks';
import winston from 'winston';

import { currentTraceIds } from '@platform/tracing';

/** Per-request context carried through async calls so every log line names its request. */
export interface LogContext {
  requestId?: string;
  [key: string]: unknown;
}

const contextStorage = new AsyncLocalStorage<LogContext>();

/** Runs `fn` with `ctx` attached to every log line written inside it (including in awaited calls). */
export function withLogContext<T>(ctx: LogContext, fn: () => T): T {
  return contextStorage.run({ ...contextStorage.getStore(), ...ctx }, fn);
}

/** The request id of the current async context, if any. */
export function currentRequestId(): string | undefined {
  return contextStorage.getStore()?.requestId;
}

export type Logger = winston.Logger;

export interface LoggerOptions {
  service: string;
  level?: string;
  /** Where lines go; defaults to stdout. Tests pass a stream to read the lines back. */
  stream?: NodeJS.WritableStream;
  silent?: boolean;
}

const SECRET_KEY =
  /(api[-_]?key|secret|password|passwd|token|authorization|credential|cookie|signature|private[-_]?key)/i;
const KEY_LIKE_VALUE = /\b(sk|whsec|pk|rk)_[A-Za-z0-9+/=_-]{8,}/g;
const REDACTED = '[REDACTED]';

/** Whether a field of this name holds a secret: remembered per name (a line's names repeat; the memory is bounded). */
const secretNames = new Map<string, boolean>();
const SECRET_NAMES_MAX = 2_000;
function isSecretName(key: string): boolean {
  let secret = secretNames.get(key);
  if (secret === undefined) {
    secret = SECRET_KEY.test(key);
    if (secretNames.size < SECRET_NAMES_MAX) secretNames.set(key, secret);
  }
  return secret;
}

/** A field's value as written: the marker under a secret-looking name (for a string or an object), else redacted. */
const redactField = (key: string, v: unknown, depth: number): unknown =>
  isSecretName(key) && (typeof v === 'string' || (typeof v === 'object' && v !== null)) ? REDACTED : redact(v, depth);

/** Replaces values under secret-looking keys, and key-looking substrings anywhere, with a marker. */
export function redact(value: unknown, depth = 0): unknown {
  if (depth > 8) return value;
  if (typeof value === 'string') return value.replace(KEY_LIKE_VALUE, REDACTED);
  if (value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map((v) => redact(v, depth + 1));
  if (value instanceof Error) {
    return { name: value.name, message: redact(value.message, depth + 1), stack: redact(value.stack, depth + 1) };
  }
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) out[k] = redactField(k, v, depth + 1);
  return out;
}

const redactFormat = winston.format((info) => {
  const ctx = contextStorage.getStore();
  const redacted = redact({ ...ctx, ...currentTraceIds(), ...info }) as Record<string, unknown>;
  for (const key of Object.keys(redacted)) (info as Record<string, unknown>)[key] = redacted[key];
  return info;
});

/** Lines written to standard output more than this many characters at once go out at once. */
const STDOUT_BATCH_CHARS = 64 * 1024;
let stdoutPending = '';
let stdoutFlushing = false;
let stdoutExitHook = false;

function flushStdout(): void {
  stdoutFlushing = false;
  if (stdoutPending === '') return;
  const text = stdoutPending;
  stdoutPending = '';
  process.stdout.write(text);
}

/**
 * Standard output's lines, written together once per turn of the event loop (`setImmediate`) rather than one write
 * each: a loaded service logs several lines a turn, and each write is a system call that wakes the reader. On exit
 * (`process.exit`, an uncaught error's end) what is pending is written first: standard output is a pipe or a file in
 * a container, written synchronously there. A process killed outright loses at most the current turn's lines.
 */
function stdoutLines(line: string): void {
  stdoutPending += line;
  if (stdoutPending.length >= STDOUT_BATCH_CHARS) return flushStdout();
  if (stdoutFlushing) return;
  if (!stdoutExitHook) {
    stdoutExitHook = true;
    process.once('exit', flushStdout);
  }
  stdoutFlushing = true;
  setImmediate(flushStdout);
}

/**
 * A winston logger writing JSON lines. Every line carries `service`, `timestamp`, the current request id (when
 * inside a request), `trace_id` and `span_id` (when written inside a traced span) and any child-logger fields;
 * secret-looking fields and key-shaped strings are redacted.
 */
export function createLogger(opts: LoggerOptions): Logger {
  const transport = opts.stream
    ? new winston.transports.Stream({ stream: opts.stream })
    : new winston.transports.Console();
  const logger = winston.createLogger({
    level: opts.level ?? 'info',
    silent: opts.silent ?? false,
    defaultMeta: { service: opts.service },
    format: winston.format.combine(
      winston.format.timestamp(),
      winston.format.errors({ stack: true }),
      redactFormat(),
      winston.format.json(),
    ),
    transports: [transport],
  });
  // Lines are written here, in one pass: the level checked first (a line below it is dropped before any work), then
  // the context, the redaction and one JSON.stringify, written straight to the destination. winston's own path runs
  // the same formats through a chain of object-mode streams per line, which cost services several percent of their
  // CPU at `info`. A line JSON cannot write (a cycle, a BigInt) takes winston's path, whose JSON handles both. Child
  // loggers write through this too.
  const write = opts.stream ? (line: string) => void opts.stream!.write(line) : stdoutLines;
  const viaWinston = logger.write.bind(logger);
  logger.write = ((info: winston.LogEntry, ...rest: never[]) => {
    if (logger.silent || !logger.isLevelEnabled(info.level)) return true;
    let line: string;
    try {
      line = JSON.stringify(lineOf(info));
    } catch {
      return viaWinston(info, ...rest);
    }
    write(`${line}\n`);
    return true;
  }) as typeof logger.write;
  return logger;
}

/**
 * A line's fields, redacted, in one new object: the request's context, the trace ids, then the line's own fields
 * (theirs win), as winston's `timestamp()` and `errors({ stack: true })` formats make them: the time, and an Error
 * logged as the line itself or as its message turned into its message and stack. Built field by field rather than by
 * spreading (the line is logged on every request: each spread was a copy of its own).
 */
function lineOf(info: winston.LogEntry): Record<string, unknown> {
  const line: Record<string, unknown> = {};
  const put = (k: string, v: unknown) => {
    line[k] = redactField(k, v, 1);
  };
  const ctx = contextStorage.getStore();
  if (ctx) for (const k of Object.keys(ctx)) put(k, ctx[k]);
  const ids = currentTraceIds();
  if (ids) {
    line.trace_id = ids.trace_id;
    line.span_id = ids.span_id;
  }
  for (const k of Object.keys(info)) put(k, (info as Record<string, unknown>)[k]);
  const message: unknown = info.message;
  const err = info instanceof Error ? info : message instanceof Error ? message : undefined;
  if (err) {
    put('message', err.message);
    put('stack', err.stack);
  }
  line.timestamp = new Date().toISOString();
  return line;
}
