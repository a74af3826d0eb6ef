import { runInNewContext } from 'node:vm';

import { AppError, isUnavailableError, NotFoundError, ServiceUnavailableError, toAppError } from '@platform/errors';

const named = (name: string, message: string, extra: Record<string, unknown> = {}) =>
  Object.assign(new Error(message), { name, ...extra });

describe('isUnavailableError: a store that cannot serve now, not a bad request or a bug', () => {
  test.each([
    ['driver: no server selected', named('MongoServerSelectionError', 'Server selection timed out after 3000 ms')],
    ['driver: network', named('MongoNetworkError', 'connect ECONNREFUSED 127.0.0.1:27017')],
    ['driver: pool cleared', named('MongoPoolClearedError', 'Connection pool was cleared')],
    ['driver: server closed under the call', named('MongoServerClosedError', 'Server is closed')],
    [
      'driver: pool closed',
      named('MongoPoolClosedError', 'Attempted to check out a connection from closed connection pool'),
    ],
    ['driver: client closed', named('MongoClientClosedError', 'Operation interrupted because client was closed')],
    [
      'driver: no connection free in time',
      named('MongoWaitQueueTimeoutError', 'Timed out while checking out a connection from connection pool'),
    ],
    [
      'driver: stale primary',
      named('MongoStalePrimaryError', 'primary marked stale due to electionId/setVersion mismatch'),
    ],
    ['ioredis: retries exhausted', named('MaxRetriesPerRequestError', 'Reached the max retries per request limit')],
    ['ioredis: closed connection', new Error('Connection is closed.')],
    ['MongoDB: primary stepped down', named('MongoServerError', 'not primary', { code: 10107 })],
    ['MongoDB: shutting down', named('MongoServerError', 'interrupted at shutdown', { code: 11600 })],
    [
      'MongoDB: retryable write label',
      named('MongoServerError', 'x', { code: 999, errorLabelSet: new Set(['RetryableWriteError']) }),
    ],
    [
      'FerretDB: PostgreSQL unreachable',
      named('MongoServerError', '[collection.go:109] failed to connect to `user=postgres`: dial error', { code: 1 }),
    ],
    [
      'FerretDB: PostgreSQL connection cut',
      named('MongoServerError', '[msg_insert.go:168] unexpected EOF', { code: 1 }),
    ],
    [
      'FerretDB: an insertMany while PostgreSQL is away',
      named('MongoBulkWriteError', '[msg_insert.go:168] failed to connect to `user=postgres`', { code: 1 }),
    ],
    [
      'FerretDB: PostgreSQL still starting',
      named('MongoServerError', 'FATAL: the database system is not yet accepting connections (SQLSTATE 57P03)', {
        code: 1,
      }),
    ],
    [
      'FerretDB: PostgreSQL connection reset',
      named('MongoServerError', '[query_iterator.go:92] read tcp: connection reset by peer', { code: 1 }),
    ],
    [
      'FerretDB: PostgreSQL shut down by its operator',
      named('MongoServerError', 'FATAL: terminating connection due to administrator command (SQLSTATE 57P01)', {
        code: 1,
      }),
    ],
    [
      'FerretDB: PostgreSQL connection failure class',
      named('MongoServerError', 'ERROR: connection failure (SQLSTATE 08006)', { code: 1 }),
    ],
    ['ours: 503 already', new ServiceUnavailableError()],
  ])('%s', (_name, err) => {
    expect(isUnavailableError(err)).toBe(true);
    expect(toAppError(err)?.status).toBe(503);
  });

  test.each([
    ['duplicate key', named('MongoServerError', 'E11000 duplicate key error', { code: 11000 })],
    ['bad update', named('MongoServerError', 'Modifiers operate on fields but we found type string', { code: 9 })],
    [
      'an internal error that is not the store being away',
      named('MongoServerError', 'unsupported operator $where', { code: 1 }),
    ],
    ['a bug', new TypeError('x is undefined')],
    ['not an error', 'boom'],
  ])('%s is not', (_name, err) => {
    expect(isUnavailableError(err)).toBe(false);
  });

  test('a bulk write cut off as a whole is the outage it wraps; one refusing a document is not', () => {
    const cut = named('MongoBulkWriteError', 'connection 3 to 127.0.0.1:27017 closed');
    Object.assign(cut, { errorResponse: named('MongoNetworkError', 'connection 3 to 127.0.0.1:27017 closed') });
    expect(isUnavailableError(cut)).toBe(true);
    const duplicate = named('MongoBulkWriteError', 'E11000 duplicate key', { code: 11000 });
    Object.assign(duplicate, { errorResponse: named('MongoServerError', 'E11000 duplicate key', { code: 11000 }) });
    expect(isUnavailableError(duplicate)).toBe(false);
  });

  test('AppErrors pass through toAppError unchanged', () => {
    const e = new NotFoundError('Webhook');
    expect(toAppError(e)).toBe(e);
    expect(e).toBeInstanceOf(AppError);
  });
});

test('an error made in another realm (a socket error seen from a sandbox) is classified by its shape', () => {
  const foreign = runInNewContext(
    "Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' })",
  ) as unknown;
  expect(foreign instanceof Error).toBe(false);
  expect(isUnavailableError(foreign)).toBe(true);
  expect(isUnavailableError({ name: 'Error', message: 'a bug' })).toBe(false);
});

test.each([
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EAI_AGAIN',
  'ENOTFOUND',
])('a plain socket error %s (a database client passing Node’s error on) is a store away', (code) => {
  expect(isUnavailableError(Object.assign(new Error(`connect ${code} 127.0.0.1:5432`), { code }))).toBe(true);
  // Another library's error of the same code is its own to classify (an outbound call is a 502, not a 503).
  expect(isUnavailableError(Object.assign(new Error('x'), { name: 'AxiosError', code }))).toBe(false);
});
