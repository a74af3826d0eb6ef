import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import {
  chmodSync,
  chownSync,
  closeSync,
  existsSync,
  mkdtempSync,
  openSync,
  readdirSync,
  readFileSync,
  rmSync,
} from 'node:fs';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';

import { registerChild } from './children';
import { infraEnv } from './infra-env';
import { freePort } from './net';
import { waitForPort } from './wait-port';

export interface PrivatePostgres {
  /** `postgres://postgres@127.0.0.1:<port>/postgres` */
  url: string;
  port: number;
  /** Starts the server (a no-op while it runs); its data survives a stop. */
  start(): Promise<void>;
  /** Stops the server at once (immediate shutdown: connections cut, no checkpoint, recovery at the next start). */
  stop(): Promise<void>;
  /** Stops the server for good and deletes its data. */
  dispose(): Promise<void>;
}

/** The directory of the machine's PostgreSQL server binaries (Debian's /usr/lib/postgresql/<version>/bin). */
function postgresBin(): string {
  if (process.env.POSTGRES_BIN_DIR) return process.env.POSTGRES_BIN_DIR;
  const root = '/usr/lib/postgresql';
  const versions = existsSync(root) ? readdirSync(root).sort((a, b) => Number(b) - Number(a)) : [];
  for (const v of versions) if (existsSync(join(root, v, 'bin', 'postgres'))) return join(root, v, 'bin');
  throw new Error('PostgreSQL server binaries not found (set POSTGRES_BIN_DIR)');
}

/** PostgreSQL refuses to run as root: as root, its commands run as the `postgres` system user. */
function asServerUser(cmd: string, args: string[]): [string, string[]] {
  return userInfo().uid === 0 ? ['runuser', ['-u', 'postgres', '--', cmd, ...args]] : [cmd, args];
}

/** The postmaster: the spawned process itself, or its child when it was started through runuser. */
function postmasterOf(pid: number): number {
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      // pid (comm) state ppid ...: comm may hold spaces and parentheses, so read after the last ')'.
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      if (Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) === pid) return Number(name);
    } catch {
      // exited while listed
    }
  }
  return pid;
}

const signal = (pid: number, sig: NodeJS.Signals) => {
  try {
    process.kill(pid, sig);
  } catch {
    // already gone
  }
};

/**
 * A PostgreSQL server of this test's own (a fresh cluster in a temp dir, trust auth, no fsync), which the test may
 * stop and restart to take away the storage of a `privateStore()` on it, without disturbing the machine's server.
 */
export async function privatePostgres(): Promise<PrivatePostgres> {
  const bin = postgresBin();
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), 'postgres-'));
  const data = join(dir, 'data');
  if (userInfo().uid === 0) {
    const ids = execFileSync('id', ['-u', 'postgres']).toString().trim();
    const gid = execFileSync('id', ['-g', 'postgres']).toString().trim();
    chownSync(dir, Number(ids), Number(gid));
  }
  chmodSync(dir, 0o700);
  const [initCmd, initArgs] = asServerUser(join(bin, 'initdb'), [
    '-D',
    data,
    '-U',
    'postgres',
    '-A',
    'trust',
    '--no-sync',
    '-E',
    'UTF8',
  ]);
  execFileSync(initCmd, initArgs, { stdio: 'ignore', env: infraEnv() });
  let child: ChildProcess | undefined;
  const removeDir = () => rmSync(dir, { recursive: true, force: true });
  const self: PrivatePostgres = {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    port,
    async start() {
      if (child && child.exitCode === null && child.signalCode === null) return;
      const args = [
        '-D',
        data,
        '-p',
        String(port),
        '-k',
        dir,
        '-h',
        '127.0.0.1',
        '-c',
        'fsync=off',
        '-c',
        'full_page_writes=off',
        // The connection limit infra.sh gives the machine's server (scripts/lib.sh's PG_MAX_CONNECTIONS).
        '-c',
        'max_connections=1000',
      ];
      const [cmd, cmdArgs] = asServerUser(join(bin, 'postgres'), args);
      const log = openSync(join(dir, 'server.log'), 'a');
      const started = spawn(cmd, cmdArgs, { stdio: ['ignore', log, log], env: infraEnv() });
      closeSync(log);
      const forget = registerChild(started, [dir]);
      started.once('exit', forget);
      child = started;
      try {
        await waitForPort(port, 20_000);
      } catch (err) {
        await self.stop();
        throw new Error(`${(err as Error).message}: ${readFileSync(join(dir, 'server.log'), 'utf8').slice(-2000)}`);
      }
    },
    async stop() {
      const c = child;
      child = undefined;
      const pid = c?.pid;
      if (!c || pid === undefined) return;
      // PostgreSQL's immediate shutdown: every backend quits at once, no checkpoint, WAL recovery at the next start
      // (a crash, as far as clients and data are concerned), and the postmaster still reaps its children.
      const exited = new Promise<void>((resolve) =>
        c.exitCode !== null || c.signalCode !== null ? resolve() : c.once('exit', () => resolve()),
      );
      const postmaster = userInfo().uid === 0 ? postmasterOf(pid) : pid;
      signal(postmaster, 'SIGQUIT');
      const hard = setTimeout(() => {
        signal(postmaster, 'SIGKILL');
        signal(pid, 'SIGKILL');
      }, 5_000);
      await exited;
      clearTimeout(hard);
    },
    async dispose() {
      await self.stop();
      removeDir();
    },
  };
  process.once('exit', () => {
    if (child?.pid !== undefined) {
      signal(postmasterOf(child.pid), 'SIGKILL');
      signal(child.pid, 'SIGKILL');
    }
    removeDir();
  });
  await self.start();
  return self;
}
