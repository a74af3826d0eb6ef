import { Writable } from 'node:stream';

import { createApiKeyRepository, type Principal } from '@platform/auth';
import { connectMongo, type Connection, type MongoOptions } from '@platform/db';
import { createLogger, type Logger } from '@platform/logger';

import { uniqueName } from './names';
import { freePort } from './net';

export { freePort, uniqueName };
export {
  startRedisCluster,
  startRedisSentinel,
  type LocalRedisCluster,
  type LocalRedisSentinel,
  type RedisNodeProcess,
} from './redis-topologies';

/** Where the local infrastructure listens (started by scripts/infra.sh). */
export const testInfra = {
  mongoUri: process.env.MONGODB_URI ?? 'mongodb://127.0.0.1:27017',
  redisUrl: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379',
};

export interface TestDatabases {
  /** The service's own database, new for this test file. */
  conn: Connection;
  /** The auth database, also new for this test file. */
  authConn: Connection;
  authDb: string;
  /** Mints a real API key for an owner in the auth database. */
  mintKey(owner: Principal): Promise<string>;
  /** Revokes a key by its plaintext. */
  revokeKey(key: string): Promise<void>;
  /** Drops both databases and closes the connections. */
  cleanup(): Promise<void>;
}

export interface TestDatabasesOptions {
  monitorCommands?: boolean;
  /** More options of `connectMongo` for both connections (e.g. the adapter's settings for a `privateStore()`). */
  connect?: Partial<Omit<MongoOptions, 'uri' | 'dbName'>>;
}

/** Opens a database per test file (and an auth database beside it) on the real server. */
export async function createTestDatabases(
  prefix: string,
  uri = testInfra.mongoUri,
  opts: TestDatabasesOptions = {},
): Promise<TestDatabases> {
  const dbName = uniqueName(prefix);
  const authDb = `${dbName}_auth`;
  // The services' default server selection timeout, so outage tests see what a deployment does.
  const conn = await connectMongo({
    uri,
    dbName,
    serverSelectionTimeoutMS: 3000,
    ...opts.connect,
    monitorCommands: opts.monitorCommands,
  });
  const authConn = await connectMongo({ uri, dbName: authDb, serverSelectionTimeoutMS: 3000, ...opts.connect });
  const keys = createApiKeyRepository(authConn);
  await keys.init();
  return {
    conn,
    authConn,
    authDb,
    mintKey: async (owner) => (await keys.create(owner, 'test')).key,
    revokeKey: async (key) => {
      await keys.revoke(key.slice(0, 12));
    },
    cleanup: async () => {
      await conn.dropDatabase().catch(() => undefined);
      await authConn.dropDatabase().catch(() => undefined);
      await conn.close();
      await authConn.close();
    },
  };
}

/** A logger whose JSON lines are kept in memory, for asserting what was (not) logged. */
export function captureLogger(service = 'test'): { logger: Logger; lines: string[] } {
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _enc, cb) {
      lines.push(...chunk.toString('utf8').split('\n').filter(Boolean));
      cb();
    },
  });
  return { logger: createLogger({ service, level: 'debug', stream }), lines };
}

export { LOCAL_POSTGRES, privateStore, type PrivateStore, type PrivateStoreOptions } from './private-store';
export { privatePostgres, type PrivatePostgres } from './private-postgres';
export { waitForPort } from './wait-port';
export { startServiceProcess, type ServiceProcess, type ServiceProcessOptions } from './service-process';
export { startLocalServer, type LocalHandler, type LocalServer, type ReceivedRequest } from './local-server';
export { privateRedis, type PrivateRedis } from './private-redis';
export {
  jaegerBin,
  spansOf,
  startJaeger,
  type Jaeger,
  type JaegerProcess,
  type JaegerReference,
  type JaegerSpan,
  type JaegerTag,
  type JaegerTrace,
  type TraceSpan,
} from './jaeger';
export { CHILDREN_DIR_ENV, killRecordedChildren, registerChild, stopChild } from './children';
export { infraEnv } from './infra-env';
export { completion, startFakeLlm, type FakeLlm, type Scripted, type ScriptedStream } from './fake-llm';
export { startFakeEmbeddings, type FakeEmbeddings } from './fake-embeddings';
export { startPetStore, type Pet, type PetStore } from './pet-store';
export {
  anthropicTextReply,
  anthropicToolUseReply,
  openAiTextReply,
  openAiToolCallReply,
  startResponderLlm,
  type LlmResponder,
  type ResponderLlm,
} from './responder-llm';
export { nextDstChange, utcDayAhead, wallTimeIn, zoneOffsetMinutes } from './dates';
export {
  createResponseChecker,
  sampleOf,
  type OpenApiDocumentLike,
  type ResponseChecker,
  type ResponseCheckerOptions,
  type ResponseMismatch,
  type ResponseSample,
} from './openapi-responses';
export { monitorRedis, type RedisMonitor } from './redis-monitor';
export { commandOf, startWireProxy, type CutMode, type WireProxy } from './wire-proxy';
export { eventually } from './eventually';
