import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { registerChild, stopChild } from './children';
import { infraEnv } from './infra-env';
import { freePort } from './net';
import { waitForPort } from './wait-port';

/** The FerretDB binary that scripts/install-ferretdb.sh installed. */
export function ferretDbBinary(): string {
  return (
    process.env.FERRETDB_BIN ?? join(process.env.GOPATH ?? join(process.env.HOME ?? '/root', 'go'), 'bin', 'ferretdb')
  );
}

export interface PrivateFerretDb {
  uri: string;
  port: number;
  /** Starts the server (a no-op while it runs); its data survives a stop. */
  start(): Promise<void>;
  /** Kills the server (SIGKILL, like a crash). */
  stop(): Promise<void>;
  /** Stops the server for good and deletes its data. */
  dispose(): Promise<void>;
}

export interface PrivateFerretDbOptions {
  /** Store its data in this PostgreSQL database (e.g. a private PostgreSQL the test stops) instead of SQLite. */
  postgresUrl?: string;
}

/**
 * A FerretDB process of this test's own (SQLite storage in a temp dir, or a PostgreSQL the test names), which the
 * test may stop and restart without disturbing other test files that share the main server.
 */
export async function privateFerretDb(opts: PrivateFerretDbOptions = {}): Promise<PrivateFerretDb> {
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), 'ferretdb-'));
  let child: ChildProcess | undefined;
  const removeDir = () => rmSync(dir, { recursive: true, force: true });
  const self: PrivateFerretDb = {
    uri: `mongodb://127.0.0.1:${port}`,
    port,
    async start() {
      if (child && child.exitCode === null && child.signalCode === null) return;
      const started = spawn(
        ferretDbBinary(),
        [
          ...(opts.postgresUrl
            ? ['--handler=postgresql', `--postgresql-url=${opts.postgresUrl}`]
            : ['--handler=sqlite', `--sqlite-url=file:${dir}/`]),
          `--listen-addr=127.0.0.1:${port}`,
          '--debug-addr=-',
          '--telemetry=disable',
          `--state-dir=${dir}`,
          '--log-level=ERROR',
        ],
        { stdio: 'ignore', env: infraEnv() },
      );
      const forget = registerChild(started, [dir]);
      started.once('exit', forget);
      child = started;
      try {
        await waitForPort(port, 15_000);
      } catch (err) {
        await self.stop();
        throw err;
      }
    },
    async stop() {
      const c = child;
      child = undefined;
      if (c) await stopChild(c);
    },
    async dispose() {
      await self.stop();
      removeDir();
    },
  };
  process.once('exit', () => {
    child?.kill('SIGKILL');
    removeDir();
  });
  await self.start();
  return self;
}
