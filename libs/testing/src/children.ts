import type { ChildProcess } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

import { dropDatabase } from './postgres-databases';

/**
 * Every process a test starts (servers of the stack, service processes) is written down here while it runs, so
 * that jest's global teardown can end whatever a crashed or timed-out test file left behind: a test run leaves
 * no process running. The folder is made by the global setup and reaches the test workers through the environment.
 */
export const CHILDREN_DIR_ENV = 'TEST_CHILDREN_DIR';

interface Entry {
  pid: number;
  /** Folders to delete once the process is gone (e.g. a private store's state). */
  paths: string[];
  /** PostgreSQL databases (URLs) to drop once the process is gone (e.g. a private store's own database). */
  databases?: string[];
}

function registryDir(): string | undefined {
  return process.env[CHILDREN_DIR_ENV];
}

/** Records a started process; the returned function forgets it (call it once the process has exited). */
export function registerChild(child: ChildProcess, paths: string[] = [], databases: string[] = []): () => void {
  const dir = registryDir();
  const pid = child.pid;
  if (!dir || pid === undefined) return () => undefined;
  mkdirSync(dir, { recursive: true });
  const file = join(dir, String(pid));
  writeFileSync(file, JSON.stringify({ pid, paths, databases } satisfies Entry));
  return () => rmSync(file, { force: true });
}

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

/**
 * Kills every recorded process still alive (SIGKILL), deletes its folders and drops its databases; returns the pids it
 * had to kill.
 */
export function killRecordedChildren(dir: string): number[] {
  const killed: number[] = [];
  let names: string[] = [];
  try {
    names = readdirSync(dir);
  } catch {
    return killed;
  }
  for (const name of names) {
    let entry: Entry;
    try {
      entry = JSON.parse(readFileSync(join(dir, name), 'utf8')) as Entry;
    } catch {
      continue;
    }
    if (alive(entry.pid)) {
      try {
        process.kill(entry.pid, 'SIGKILL');
        killed.push(entry.pid);
      } catch {
        // exited meanwhile
      }
    }
    for (const p of entry.paths) rmSync(p, { recursive: true, force: true });
    for (const d of entry.databases ?? []) dropDatabase(d);
  }
  rmSync(dir, { recursive: true, force: true });
  return killed;
}

/** Sends `signal` and resolves once the process has exited (at once if it already has). */
export function stopChild(child: ChildProcess, signal: NodeJS.Signals = 'SIGKILL'): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise<void>((resolve) => {
    child.once('exit', () => resolve());
    child.kill(signal);
  });
}
