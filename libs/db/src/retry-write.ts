import mongoose from 'mongoose';

import { UNAVAILABLE_CODES } from '@platform/errors';

/**
 * Server codes of a write that may not have been applied because the primary went away (the retryable-writes
 * specification's list): the codes after which the store cannot serve (libs/errors), and two more a write may meet
 * during an election: ReadConcernMajorityNotAvailableYet (134) and ExceededTimeLimit (262).
 */
const RETRYABLE_CODES = new Set([...UNAVAILABLE_CODES, 134, 262]);

/** The write concern every write of a run's document uses, whatever the connection's default is. */
export const MAJORITY = { w: 'majority' as const, wtimeoutMS: 10_000 };

interface ErrorLike {
  code?: unknown;
  hasErrorLabel?: (label: string) => boolean;
  writeConcernError?: { code?: unknown };
  writeConcernErrors?: { code?: unknown }[];
}

/**
 * True for an error after which a write may or may not have been applied and the same write may be sent again: the
 * connection failed (closed, reset, timed out: `MongoNetworkError`), the driver or server labelled it
 * `RetryableWriteError` (or the pool asked for a retry), or the server answered one of the election codes, as an
 * error or as a write concern error. A server that cannot be selected within the timeout is not (it waited already);
 * nor is anything the server refused on its own terms (validation, duplicate key).
 */
export function isRetryableWriteError(err: unknown, depth = 0): boolean {
  if (err instanceof mongoose.mongo.MongoNetworkError) return true;
  // A bulk write (insertMany) wraps what cut it off: the driver's error in `errorResponse`, others in `cause`.
  const wrapped = err as { errorResponse?: unknown; cause?: unknown } | null;
  if (depth < 2 && wrapped !== null && typeof wrapped === 'object') {
    for (const inner of [wrapped.errorResponse, wrapped.cause]) {
      if (inner instanceof Error && inner !== err && isRetryableWriteError(inner, depth + 1)) return true;
    }
  }
  if (err instanceof mongoose.mongo.MongoServerSelectionError) return false;
  const e = err as ErrorLike | null;
  if (e === null || typeof e !== 'object') return false;
  if (typeof e.hasErrorLabel === 'function') {
    if (e.hasErrorLabel('RetryableWriteError') || e.hasErrorLabel('PoolRequestedRetry')) return true;
  }
  const codes = [e.code, e.writeConcernError?.code, ...(e.writeConcernErrors ?? []).map((w) => w.code)];
  return codes.some((c) => typeof c === 'number' && RETRYABLE_CODES.has(c));
}

/**
 * Runs `write`, and once more when it fails with a retryable error (`isRetryableWriteError`): the first attempt may
 * have been applied even though its reply was lost, so `write` is told it is the retry and must make a second
 * application harmless, e.g. an insert of documents carrying their own `_id`, where a duplicate key on the retry
 * means the first attempt landed (insertEach with `retry`), or an update conditioned on a state the first attempt
 * changes. On MongoDB replica sets the driver has already retried the write once (`retryWrites`); this covers the
 * cases it does not (FerretDB, a standalone server, a retry of its own that failed). The second attempt waits for a
 * server as any call does (up to `serverSelectionTimeoutMS`), so an election shorter than that is ridden through.
 */
export async function retryWriteOnce<T>(write: (retry: boolean) => Promise<T>): Promise<T> {
  try {
    return await write(false);
  } catch (err) {
    if (!isRetryableWriteError(err)) throw err;
  }
  return write(true);
}
