/** One document process (worker/document.worker.ts): started, measured and killed as a whole process group. */
import { fork, type ChildProcess } from 'node:child_process';
import { readFile } from 'node:fs/promises';

export interface DocumentProcess {
  child: ChildProcess;
  /** Documents it has read. */
  uses: number;
  /** Its last few KiB of stderr (cleared per document). */
  stderr: string;
  alive: boolean;
}

/**
 * Forks `script` in its own process group (so pdftoppm and tesseract die with it), its V8 heap capped at
 * `memoryMb`. Unreferenced: an idle process never keeps the service from exiting, and it exits itself when the
 * service goes away (the IPC channel closes).
 */
export function startDocumentProcess(script: string, memoryMb: number): DocumentProcess {
  const child = fork(script, [], {
    execArgv: [`--max-old-space-size=${memoryMb}`],
    stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
    detached: true,
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', NODE_ENV: process.env.NODE_ENV ?? 'production' },
  });
  const proc: DocumentProcess = { child, uses: 0, stderr: '', alive: true };
  child.stderr?.on('data', (c: Buffer) => {
    proc.stderr = (proc.stderr + c.toString('utf8')).slice(-4000);
  });
  child.once('exit', () => {
    proc.alive = false;
  });
  child.unref();
  for (const handle of [child.channel, child.stderr] as ({ unref?: () => void } | null | undefined)[])
    handle?.unref?.();
  return proc;
}

/** Resident memory of the process in MiB (Linux /proc); undefined where that cannot be read. */
export async function residentMb(proc: DocumentProcess): Promise<number | undefined> {
  if (proc.child.pid === undefined) return undefined;
  const status = await readFile(`/proc/${proc.child.pid}/status`, 'utf8').catch(() => '');
  const kb = /VmRSS:\s+(\d+)\s+kB/.exec(status)?.[1];
  return kb === undefined ? undefined : Number(kb) / 1024;
}

/** SIGKILL to the whole group: the process and any pdftoppm or tesseract it started. */
export function killDocumentProcess(proc: DocumentProcess): void {
  proc.alive = false;
  if (proc.child.pid === undefined) return;
  try {
    process.kill(-proc.child.pid, 'SIGKILL');
  } catch {
    // already gone
  }
}
