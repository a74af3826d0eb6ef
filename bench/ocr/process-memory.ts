/** Resident memory of a process's descendants, sampled from /proc (Linux): the peak of one document's processes. */
import { readFileSync } from 'node:fs';

function children(pid: number): number[] {
  try {
    return readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number);
  } catch {
    return [];
  }
}

export function rssMb(pid: number): number {
  try {
    const kb = /VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
    return kb ? Number(kb) / 1024 : 0;
  } catch {
    return 0;
  }
}

function descendantsRss(pid: number): number {
  return children(pid).reduce((sum, c) => sum + rssMb(c) + descendantsRss(c), 0);
}

/**
 * Samples every 10 ms until stopped; `stop()` gives, in MiB, the peak over `pid`'s children of each child's RSS
 * plus its descendants': one document process with its pdftoppm and tesseract (idle warm processes are siblings).
 */
export function peakOfDocumentProcess(pid: number): { stop(): number } {
  let peak = 0;
  const timer = setInterval(() => {
    for (const c of children(pid)) peak = Math.max(peak, rssMb(c) + descendantsRss(c));
  }, 10);
  return {
    stop() {
      clearInterval(timer);
      return peak;
    },
  };
}
