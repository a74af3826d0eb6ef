import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { registerChild, stopChild } from './children';
import { infraEnv } from './infra-env';
import { freePort } from './net';
import { allowConnections, createDatabase, dropDatabase } from './postgres-databases';
import { waitForPort } from './wait-port';

/** The machine's PostgreSQL server (scripts/infra.sh), where a private store gets a database of its own by default. */
export const LOCAL_POSTGRES = 'postgres://postgres@127.0.0.1:5432';

/** Runs the development store's server in the foreground (exec: the spawned pid is the server's). */
const SERVER_SCRIPT = join(__dirname, '..', '..', '..', 'scripts', 'store-server.sh');

export interface PrivateStore {
  /** `mongodb://127.0.0.1:<port>` */
  uri: string;
  port: number;
  /**
   * The PostgreSQL database the server stores in. libs/db's adapter for the development store takes its locks there:
   * give it to `connectMongo` (the adapter's `postgresUrl` setting) and to the service processes started against this
   * store (the adapter's environment variable), in place of the main store's.
   */
  postgresUrl: string;
  /** Starts the server (a no-op while it runs); its data survives a stop. */
  start(): Promise<void>;
  /**
   * Takes the store away as a crash would: kills the server (SIGKILL) and, on a database of its own, refuses and ends
   * that database's PostgreSQL sessions until `start` (libs/db's adapter reads and locks there too). On a database
   * the test gave, only the server: the test stops its PostgreSQL itself.
   */
  stop(): Promise<void>;
  /** Stops the server for good and deletes its data (the database too, when this store created it). */
  dispose(): Promise<void>;
}

export interface PrivateStoreOptions {
  /**
   * Store in this PostgreSQL database (which exists; e.g. a private PostgreSQL the test stops). By default the store
   * creates a database of its own on the machine's server (`LOCAL_POSTGRES`) and drops it on `dispose`.
   */
  postgresUrl?: string;
}

/**
 * A development store server of this test's own (scripts/store-server.sh), always storing in PostgreSQL, which the
 * test may stop and restart without disturbing other test files that share the main server.
 */
export async function privateStore(opts: PrivateStoreOptions = {}): Promise<PrivateStore> {
  const port = await freePort();
  // A database of its own, dropped on dispose (or by the global teardown, if the test file ends without disposing).
  const own = opts.postgresUrl ? undefined : createDatabase(LOCAL_POSTGRES, 'store');
  const postgresUrl = opts.postgresUrl ?? own!;
  let dropped = false;
  const drop = () => {
    if (!own || dropped) return;
    dropped = true;
    dropDatabase(own);
  };
  const dir = mkdtempSync(join(tmpdir(), 'store-'));
  const log = join(dir, 'server.log');
  let child: ChildProcess | undefined;
  const removeDir = () => rmSync(dir, { recursive: true, force: true });
  const self: PrivateStore = {
    uri: `mongodb://127.0.0.1:${port}`,
    port,
    postgresUrl,
    async start() {
      if (child && child.exitCode === null && child.signalCode === null) return;
      if (own) allowConnections(own, true);
      const out = openSync(log, 'a');
      const started = spawn('bash', [SERVER_SCRIPT, String(port), postgresUrl, dir], {
        stdio: ['ignore', out, out],
        env: infraEnv(),
      });
      closeSync(out);
      const forget = registerChild(started, [dir], own ? [own] : []);
      started.once('exit', forget);
      child = started;
      try {
        await waitForPort(port, 15_000);
      } catch (err) {
        await self.stop();
        throw new Error(`${(err as Error).message}: ${readFileSync(log, 'utf8').slice(-2000)}`);
      }
    },
    async stop() {
      const c = child;
      child = undefined;
      if (c) await stopChild(c);
      if (own && !dropped) allowConnections(own, false);
    },
    async dispose() {
      await self.stop();
      drop();
      removeDir();
    },
  };
  process.once('exit', () => {
    child?.kill('SIGKILL');
    drop();
    removeDir();
  });
  try {
    await self.start();
  } catch (err) {
    await self.dispose();
    throw err;
  }
  return self;
}
