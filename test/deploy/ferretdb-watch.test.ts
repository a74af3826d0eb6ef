/**
 * The FerretDB watch of `pnpm start` (scripts/ferretdb-watch.js): a FerretDB that stops answering (SIGSTOP: its port
 * stays open, it never answers, like FerretDB 1.24 hung under a batch load) is restarted through the code path
 * infra.sh starts it with, and answers again. Everything runs on a private stack: a private PostgreSQL for FerretDB's
 * storage, a free port, and a run folder of its own (PLATFORM_RUN_DIR) for the pid file, so the shared FerretDB and
 * its .run/ferretdb.pid are never touched.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { mongoose } from '@platform/db';
import { CHILDREN_DIR_ENV, freePort, infraEnv, privatePostgres, type PrivatePostgres } from '@platform/testing';

jest.setTimeout(90_000);

const ROOT = join(__dirname, '..', '..');
const LIB = join(ROOT, 'scripts', 'lib.sh');
const WATCH = join(ROOT, 'scripts', 'ferretdb-watch.js');

let pg: PrivatePostgres;
let runDir: string;
let port: number;
let env: NodeJS.ProcessEnv;
/** Every FerretDB pid this file saw, killed at the end whatever happened. */
const ferretPids = new Set<number>();
const watchers: ChildProcess[] = [];

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const alive = (pid: number): boolean => {
  try {
    // A zombie (exited, not yet reaped by whoever adopted it) is gone too.
    return !/^\S+ \(.*\) [ZX]/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false;
  }
};

const signal = (pid: number, sig: NodeJS.Signals) => {
  try {
    process.kill(pid, sig);
  } catch {
    // already gone
  }
};

/** The pid the scripts recorded; also written down for jest's global teardown (the FerretDB runs detached). */
function pidFile(): number {
  const pid = Number(readFileSync(join(runDir, 'ferretdb.pid'), 'utf8').trim());
  if (!ferretPids.has(pid)) {
    ferretPids.add(pid);
    const dir = process.env[CHILDREN_DIR_ENV];
    if (dir) writeFileSync(join(dir, String(pid)), JSON.stringify({ pid, paths: [] }));
  }
  return pid;
}

/** Whether the private FerretDB answers a MongoDB ping within `timeoutMs`. */
async function answers(timeoutMs: number): Promise<boolean> {
  const client = new mongoose.mongo.MongoClient(`mongodb://127.0.0.1:${port}`, {
    directConnection: true,
    serverSelectionTimeoutMS: timeoutMs,
    connectTimeoutMS: timeoutMs,
    socketTimeoutMS: timeoutMs,
  });
  try {
    return (await client.db('admin').command({ ping: 1 })).ok === 1;
  } catch {
    return false;
  } finally {
    void client.close(true).catch(() => undefined);
  }
}

/** Starts the watch with short periods; its stderr (the log) is collected. */
function startWatch(extra: NodeJS.ProcessEnv = {}): {
  child: ChildProcess;
  log: () => string;
  exited: Promise<number | null>;
} {
  const child = spawn('node', [WATCH], {
    env: {
      ...env,
      FERRETDB_WATCH_INTERVAL: '0.5',
      FERRETDB_WATCH_TIMEOUT: '1',
      FERRETDB_WATCH_FAILURES: '2',
      FERRETDB_WATCH_STOP_GRACE: '2',
      ...extra,
    },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  watchers.push(child);
  let out = '';
  child.stderr!.on('data', (d: Buffer) => (out += d.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return { child, log: () => out, exited };
}

async function until(what: string, ok: () => boolean | Promise<boolean>, ms: number): Promise<void> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (await ok()) return;
    await sleep(100);
  }
  throw new Error(`timed out after ${ms} ms waiting for ${what}`);
}

beforeAll(async () => {
  pg = await privatePostgres();
  runDir = mkdtempSync(join(tmpdir(), 'ferretdb-watch-'));
  port = await freePort();
  env = { ...infraEnv(), PLATFORM_RUN_DIR: runDir, FERRETDB_PORT: String(port), FERRETDB_POSTGRESQL_URL: pg.url };
  // The first FerretDB, started as infra.sh starts it.
  await new Promise<void>((resolve, reject) =>
    execFile('bash', ['-c', 'source "$1" && start_ferretdb', 'ferretdb-watch.test', LIB], { env }, (err, _o, stderr) =>
      err ? reject(new Error(`start_ferretdb failed: ${stderr}`)) : resolve(),
    ),
  );
  pidFile();
});

afterAll(async () => {
  for (const w of watchers) if (w.exitCode === null && w.signalCode === null) w.kill('SIGKILL');
  try {
    pidFile();
  } catch {
    // no pid file
  }
  for (const pid of ferretPids) {
    signal(pid, 'SIGKILL');
    signal(pid, 'SIGCONT');
  }
  for (const pid of ferretPids) {
    await until(`pid ${pid} to end`, () => !alive(pid), 5_000).catch(() => undefined);
    // Ended (at most a zombie its new parent has yet to reap): nothing for the global teardown to end.
    const dir = process.env[CHILDREN_DIR_ENV];
    if (dir && !alive(pid)) rmSync(join(dir, String(pid)), { force: true });
  }
  await pg?.dispose();
  if (runDir) rmSync(runDir, { recursive: true, force: true });
});

it('refuses a bad setting and does nothing when turned off', async () => {
  const bad = startWatch({ FERRETDB_WATCH_TIMEOUT: '0' });
  expect(await bad.exited).toBe(1);
  expect(bad.log()).toMatch(/FERRETDB_WATCH_TIMEOUT must be seconds above 0, got '0'/);
  const off = startWatch({ FERRETDB_WATCH_INTERVAL: '0' });
  expect(await off.exited).toBe(0);
  expect(off.log()).toMatch(/watch off/);
});

it('restarts a FerretDB that stopped answering: a new process answers within seconds', async () => {
  const watch = startWatch();
  await until('the watch to start', () => /watching FerretDB/.test(watch.log()), 10_000);
  const oldPid = pidFile();
  // A ping that answers resets the count: still the same process after a few rounds.
  await sleep(2_000);
  expect(pidFile()).toBe(oldPid);

  signal(oldPid, 'SIGSTOP');
  const stoppedAt = Date.now();
  await until('a new FerretDB that answers', async () => pidFile() !== oldPid && (await answers(1_000)), 30_000);
  const recoveredMs = Date.now() - stoppedAt;
  process.stderr.write(`FerretDB answered again ${recoveredMs} ms after it stopped answering\n`);
  // 2 failed pings (1 s each) half a second apart, the stop and the start: a few seconds.
  expect(recoveredMs).toBeLessThan(20_000);
  expect(alive(oldPid)).toBe(false);
  // Each failed ping says why, within its timeout (1 s) and the pause between rounds (0.5 s).
  expect(watch.log()).toMatch(/ping failed \(1\/2\): \S/);
  expect(watch.log()).toMatch(/ping failed \(2\/2\): \S/);
  expect(watch.log()).toMatch(new RegExp(`stopping FerretDB \\(pid ${oldPid}\\)`));
  // The watch says so once the new process's port is open, which may be just after it first answered.
  await until('the watch to report the restart', () => /FerretDB restarted/.test(watch.log()), 5_000);
  expect(watch.log()).toMatch(new RegExp(`FerretDB restarted \\(pid ${pidFile()}\\)`));

  // The watch goes on with the new process, and ends promptly on SIGTERM (up.sh's trap).
  const sinceRestart = watch.log().length;
  await sleep(2_000);
  expect(watch.log().slice(sinceRestart)).not.toMatch(/ping failed/);
  const termAt = Date.now();
  watch.child.kill('SIGTERM');
  expect(await watch.exited).toBe(0);
  expect(Date.now() - termAt).toBeLessThan(3_000);
  expect(alive(pidFile())).toBe(true);
});

it('leaves alone a FerretDB these scripts did not start', async () => {
  // A pid file naming another process (a pid reused after a reboot, say): not a FerretDB on this port.
  const other = spawn('sleep', ['60'], { stdio: 'ignore' });
  const foreignDir = mkdtempSync(join(tmpdir(), 'ferretdb-watch-foreign-'));
  try {
    writeFileSync(join(foreignDir, 'ferretdb.pid'), String(other.pid));
    const watch = startWatch({ PLATFORM_RUN_DIR: foreignDir });
    expect(await watch.exited).toBe(0);
    expect(watch.log()).toMatch(/not started by these scripts/);
    expect(alive(other.pid!)).toBe(true);

    rmSync(join(foreignDir, 'ferretdb.pid'));
    const none = startWatch({ PLATFORM_RUN_DIR: foreignDir });
    expect(await none.exited).toBe(0);
    expect(none.log()).toMatch(/not started by these scripts/);
  } finally {
    other.kill('SIGKILL');
    rmSync(foreignDir, { recursive: true, force: true });
  }
  // The private FerretDB still runs, untouched.
  expect(await answers(2_000)).toBe(true);
});

it('stop_pid ends with SIGKILL a process that ignores SIGTERM', async () => {
  const stubborn = spawn('bash', ['-c', 'trap "" TERM; while :; do sleep 0.1; done'], { stdio: 'ignore' });
  try {
    const started = Date.now();
    const stderr = await new Promise<string>((resolve, reject) =>
      execFile(
        'bash',
        ['-c', 'source "$1" && stop_pid "$2" 1', 'ferretdb-watch.test', LIB, String(stubborn.pid)],
        { env },
        (err, _o, e) => (err ? reject(new Error(`stop_pid failed: ${e}`)) : resolve(e)),
      ),
    );
    expect(stderr).toMatch(/SIGKILL/);
    expect(Date.now() - started).toBeLessThan(4_000);
    expect(alive(stubborn.pid!)).toBe(false);
  } finally {
    stubborn.kill('SIGKILL');
  }
});
