/**
 * The platform's one error vocabulary. Services throw these; the HTTP layer (libs/http) maps them to the
 * API's response shapes. No dependency on express or any driver.
 */

/** One invalid field, FastAPI style: `loc` starts with body, query, path or header. */
export interface FieldError {
  loc: (string | number)[];
  msg: string;
  type: string;
}

/** Base class: an error with an HTTP status and a client-safe `detail`. */
export class AppError extends Error {
  constructor(
    readonly status: number,
    readonly detail: unknown,
    options?: { cause?: unknown; headers?: Record<string, string> },
  ) {
    super(
      typeof detail === 'string' ? detail : `HTTP ${status}`,
      options?.cause ? { cause: options.cause } : undefined,
    );
    this.name = new.target.name;
    this.headers = options?.headers ?? {};
  }
  readonly headers: Record<string, string>;
}

/** 404 `{"detail":"<Thing> not found"}`. */
export class NotFoundError extends AppError {
  constructor(thing: string) {
    super(404, `${thing} not found`);
  }
}

/** 422 with one entry per invalid field. */
export class ValidationError extends AppError {
  constructor(readonly errors: FieldError[]) {
    super(422, errors);
  }
  /** A single-field validation error. */
  static field(loc: (string | number)[], msg: string, type: string): ValidationError {
    return new ValidationError([{ loc, msg, type }]);
  }
}

/** 403 for missing or invalid credentials, and for acting outside one's permissions. */
export class ForbiddenError extends AppError {
  constructor(detail = 'Invalid Permission') {
    super(403, detail);
  }
}

/** 401: used by the webhook trigger's signature check. */
export class UnauthorizedError extends AppError {
  constructor(detail: string) {
    super(401, detail);
  }
}

/** 409: the request conflicts with the object's current state. */
export class ConflictError extends AppError {
  constructor(detail: string) {
    super(409, detail);
  }
}

/** 413 `{"detail":"Request body too large"}`. */
export class PayloadTooLargeError extends AppError {
  constructor(detail = 'Request body too large') {
    super(413, detail);
  }
}

/** 429 with `Retry-After` in seconds. */
export class RateLimitedError extends AppError {
  constructor(retryAfterSeconds: number, detail = 'Too many requests') {
    super(429, detail, { headers: { 'Retry-After': String(Math.max(1, Math.ceil(retryAfterSeconds))) } });
  }
}

/** 502: an upstream outside the product (LLM provider, tool API) failed. */
export class BadGatewayError extends AppError {
  constructor(
    detail: string,
    readonly upstreamStatus?: number,
  ) {
    super(502, detail);
  }
}

/** 503 `{"detail":"Service unavailable"}`: MongoDB, Redis or a sibling service cannot be reached. */
export class ServiceUnavailableError extends AppError {
  constructor(cause?: unknown, detail = 'Service unavailable') {
    super(503, detail, { cause });
  }
}

const UNAVAILABLE_NAMES = new Set([
  'MongoServerSelectionError',
  'MongooseServerSelectionError',
  'MongoNetworkError',
  'MongoNetworkTimeoutError',
  'MongoNotConnectedError',
  'MongoTopologyClosedError',
  'MongoPoolClearedError',
  // The server or its pool closed under a call in flight (the server restarted; this process is shutting down), no
  // connection free within the wait, a primary found stale during an election: none says the request was wrong.
  'MongoServerClosedError',
  'MongoPoolClosedError',
  'MongoClientClosedError',
  'MongoWaitQueueTimeoutError',
  'MongoStalePrimaryError',
  'MaxRetriesPerRequestError',
]);

/**
 * Node's codes of a connection that could not be opened or was cut before an answer: the other side is not reached
 * (refused, no route, no such host, reset or closed under the request). The agent client reads them as "nothing ran".
 */
export const NOT_CONNECTED_CODES: ReadonlySet<string> = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EAI_AGAIN',
  'ENOTFOUND',
]);

/** A store's socket failures: not connected, or a connection that timed out. */
const SOCKET_FAILURES = new Set([...NOT_CONNECTED_CODES, 'ETIMEDOUT']);

const UNAVAILABLE_MESSAGES = [
  /before initial connection is complete/i,
  /Connection is closed/i,
  /connect ECONNREFUSED/i,
  /Client must be connected/i,
  /Topology is closed/i,
  /Stream isn't writeable/i,
];

/**
 * Server errors that mean "the database cannot serve right now", not "this request is wrong": MongoDB's replica-set
 * and shutdown codes, and the development store's InternalError when its PostgreSQL backend is unreachable (the
 * driver sees a MongoServerError whose message carries PostgreSQL's connection failure).
 */
export const UNAVAILABLE_CODES: ReadonlySet<number> = new Set([
  6, 7, 89, 91, 189, 9001, 10107, 11600, 11602, 13435, 13436,
]);
const STORE_DOWN_MESSAGES = [
  /failed to connect to/i,
  /dial error/i,
  /unexpected EOF/i,
  /connection refused/i,
  /conn(ection)? (is )?closed/i,
  /broken pipe/i,
  /the database system is (starting up|shutting down|in recovery mode|not yet accepting connections)/i,
  /terminating connection/i,
  /connection reset by peer/i,
  /server closed the connection/i,
  /i\/o timeout/i,
  /context deadline exceeded/i,
  /\bEOF\b/,
  // PostgreSQL's connection exception (08xxx) and operator intervention (57P0x) classes
  /SQLSTATE (08[0-9A-Z]{3}|57P0[0-9])/,
];

/**
 * Server-side errors of the driver: MongoServerError, the bulk and write-concern errors that carry a code too, and
 * one document's error of an unordered bulk write (`WriteError`).
 */
const SERVER_ERROR_NAMES = new Set(['MongoServerError', 'MongoBulkWriteError', 'MongoWriteConcernError', 'WriteError']);

function isStoreDownServerError(err: Error): boolean {
  if (!SERVER_ERROR_NAMES.has(err.name)) return false;
  const e = err as Error & { code?: unknown; errorLabelSet?: Set<string> };
  if (typeof e.code === 'number' && UNAVAILABLE_CODES.has(e.code)) return true;
  if (e.errorLabelSet?.has('RetryableWriteError') || e.errorLabelSet?.has('ResetPool')) return true;
  return e.code === 1 && STORE_DOWN_MESSAGES.some((re) => re.test(err.message));
}

/**
 * True when an error means a backing store (MongoDB, Redis) could not be reached, as opposed to a bug.
 * Recognised by the drivers' error names and messages so that this package needs no driver dependency.
 */
export function isUnavailableError(err: unknown): boolean {
  return unavailable(err, 0);
}

/**
 * An error by its shape, not `instanceof`: an error made in another realm (Node's own `net` errors seen from a test's
 * sandbox, say) is not an instance of this realm's Error, and is classified all the same.
 */
export const isErrorLike = (err: unknown): err is Error =>
  err instanceof Error ||
  (typeof err === 'object' &&
    err !== null &&
    typeof (err as Error).name === 'string' &&
    typeof (err as Error).message === 'string');

function unavailable(err: unknown, depth: number): boolean {
  if (!isErrorLike(err)) return false;
  // A bulk write cut off as a whole (insertMany: the connection lost, no server) is a MongoBulkWriteError of no
  // code wrapping what cut it off in `errorResponse`.
  const inner = (err as { errorResponse?: unknown }).errorResponse;
  if (err.name === 'MongoBulkWriteError' && depth < 2 && isErrorLike(inner) && inner !== err)
    if (unavailable(inner, depth + 1)) return true;
  if (err instanceof ServiceUnavailableError) return true;
  if (UNAVAILABLE_NAMES.has(err.name)) return true;
  if (isStoreDownServerError(err)) return true;
  if (err.name.startsWith('Mongo') || err.name.startsWith('Mongoose') || err.name === 'Error') {
    if (UNAVAILABLE_MESSAGES.some((re) => re.test(err.message))) return true;
  }
  // A socket that could not be opened or was cut, as the PostgreSQL and Redis clients pass Node's own error on.
  const code = (err as { code?: unknown }).code;
  return err.name === 'Error' && typeof code === 'string' && SOCKET_FAILURES.has(code);
}

/** Converts anything thrown into an AppError: known ones pass through, infrastructure outages become 503. */
export function toAppError(err: unknown): AppError | undefined {
  if (err instanceof AppError) return err;
  if (isUnavailableError(err)) return new ServiceUnavailableError(err);
  return undefined;
}
