import { randomBytes } from 'node:crypto';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { connectMongo, type Connection } from '@platform/db';
import { createApiKeyRepository, type Principal } from '@platform/auth';
import { createLogger, type Logger } from '@platform/logger';
import { freePort } from './net';

export { freePort };

/** Where the local infrastructure listens (started by scripts/infra.sh). */
export const testInfra = {
  mongoUri: process.env.MONGODB_URI ?? 'mongodb://127.0.0.1:27017',
  redisUrl: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379',
};

/** A short unique name for per-test-file databases. */
export function uniqueName(prefix: string): string {
  return `${prefix}_${Date.now().toString(36)}${randomBytes(3).toString('hex')}`;
}

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

/** Opens a database per test file (and an auth database beside it) on the real server. */
export async function createTestDatabases(prefix: string, uri = testInfra.mongoUri): Promise<TestDatabases> {
  const dbName = uniqueName(prefix);
  const authDb = `${dbName}_auth`;
  // The services' default server selection timeout, so outage tests see what a deployment does.
  const conn = await connectMongo({ uri, dbName, serverSelectionTimeoutMS: 3000 });
  const authConn = await connectMongo({ uri, dbName: authDb, serverSelectionTimeoutMS: 3000 });
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

async function waitForPort(port: number, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const ok = await new Promise<boolean>((resolve) => {
      const s: Socket = connect(port, '127.0.0.1');
      s.once('connect', () => {
        s.destroy();
        resolve(true);
      });
      s.once('error', () => resolve(false));
    });
    if (ok) return;
    if (Date.now() > deadline) throw new Error(`nothing listening on ${port} after ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** The FerretDB binary that scripts/install-ferretdb.sh installed. */
export function ferretDbBinary(): string {
  return process.env.FERRETDB_BIN ?? join(process.env.GOPATH ?? join(process.env.HOME ?? '/root', 'go'), 'bin', 'ferretdb');
}

export interface PrivateFerretDb {
  uri: string;
  port: number;
  start(): Promise<void>;
  stop(): Promise<void>;
}

/**
 * A FerretDB process of this test's own (SQLite storage in a temp dir), which the test may stop and restart
 * without disturbing other test files that share the main server.
 */
export async function privateFerretDb(): Promise<PrivateFerretDb> {
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), 'ferretdb-'));
  let child: ChildProcess | undefined;
  const self: PrivateFerretDb = {
    uri: `mongodb://127.0.0.1:${port}`,
    port,
    async start() {
      child = spawn(
        ferretDbBinary(),
        [
          '--handler=sqlite',
          `--sqlite-url=file:${dir}/`,
          `--listen-addr=127.0.0.1:${port}`,
          '--debug-addr=-',
          '--telemetry=disable',
          `--state-dir=${dir}`,
          '--log-level=ERROR',
        ],
        { stdio: 'ignore' },
      );
      await waitForPort(port, 15_000);
    },
    async stop() {
      const c = child;
      child = undefined;
      if (!c || c.exitCode !== null) return;
      await new Promise<void>((resolve) => {
        c.once('exit', () => resolve());
        c.kill('SIGKILL');
      });
    },
  };
  await self.start();
  const stop = self.stop;
  self.stop = async () => {
    await stop();
  };
  process.once('exit', () => {
    child?.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  });
  return self;
}

export { startServiceProcess, type ServiceProcess, type ServiceProcessOptions } from './service-process';
export { startLocalServer, type LocalHandler, type LocalServer, type ReceivedRequest } from './local-server';
export { privateRedis, type PrivateRedis } from './private-redis';
export { startFakeLlm, type FakeLlm, type Scripted } from './fake-llm';
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
