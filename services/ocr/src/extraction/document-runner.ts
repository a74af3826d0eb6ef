/**
 * Runs each document in a document process (worker/document.worker.ts), off the request thread: a V8 heap cap, a
 * resident-memory watchdog and a time limit per document, the whole process group killed past either, so the
 * request answers 422 instead of the service running out of anything. A process that read its document within
 * the limits is kept (warm) for a later document, up to `MAX_USES` documents; one that was stopped never is.
 */
import { dirname, join } from 'node:path';

import type { Logger } from '@platform/logger';

import { killDocumentProcess, residentMb, startDocumentProcess, type DocumentProcess } from './document-process';
import type { DocumentJob, DocumentOutcome } from './worker/protocol';

export interface RunnerOptions {
  /** The compiled document process entry (dist/extraction/worker/document.worker.js). */
  script: string;
  timeoutMs: number;
  /** Resident memory of the document process, and address space of each OCR tool, in MiB. */
  memoryMb: number;
  /** Warm processes kept between documents (about the number read at once). */
  keepIdle: number;
  logger: Logger;
}

/** What the service decides per document; the runner adds the rest. */
export type JobInput = Omit<DocumentJob, 'cMapDir' | 'fontDir' | 'toolMemoryMb'>;

export interface DocumentRunner {
  run(job: JobInput): Promise<DocumentOutcome>;
}

const WATCH_MS = 50;
/** Documents one process reads before it is replaced, so nothing a long run accumulates lives for ever. */
export const MAX_USES = 50;
const PDFJS_DIR = dirname(require.resolve('pdfjs-dist/package.json'));

export function createDocumentRunner(opts: RunnerOptions): DocumentRunner {
  const idle: DocumentProcess[] = [];
  const limits = { timeout: `${Math.round(opts.timeoutMs / 1000)} s`, memory: `${opts.memoryMb} MiB` };

  /** Keeps `proc` warm when it ended well and has room left; else ends it. */
  async function release(proc: DocumentProcess, reusable: boolean): Promise<void> {
    const rss = reusable ? await residentMb(proc) : undefined;
    const roomy = rss !== undefined && rss < opts.memoryMb / 2;
    if (reusable && roomy && proc.alive && proc.uses < MAX_USES && idle.length < opts.keepIdle) idle.push(proc);
    else killDocumentProcess(proc);
  }

  function runIn(proc: DocumentProcess, job: DocumentJob): Promise<DocumentOutcome> {
    proc.uses++;
    proc.stderr = '';
    const { child } = proc;
    return new Promise<DocumentOutcome>((resolve) => {
      let settled = false;
      const settle = (outcome: DocumentOutcome, reusable: boolean) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        clearInterval(watch);
        child.off('message', onMessage);
        child.off('exit', onExit);
        // Answer once the process is back in the pool, so the next document (waiting on this one) finds it warm.
        void release(proc, reusable).finally(() => resolve(outcome));
      };
      const memoryExceeded = () =>
        settle(
          {
            ok: false,
            reason: 'memory',
            message: `Reading the PDF needed more than the ${limits.memory} memory limit`,
          },
          false,
        );
      const onMessage = (outcome: DocumentOutcome) => settle(outcome, true);
      const onExit = (code: number | null, signal: NodeJS.Signals | null) => {
        // V8 aborts when the heap cap is reached; anything else is a reader fault on this file.
        if (signal === 'SIGABRT' || code === 134 || /heap out of memory/i.test(proc.stderr)) return memoryExceeded();
        opts.logger.warn('document process ended without an answer', { code, signal, stderr: proc.stderr.slice(-500) });
        settle({ ok: false, reason: 'corrupt', message: 'The PDF is damaged and cannot be read' }, false);
      };
      const timer = setTimeout(
        () =>
          settle(
            { ok: false, reason: 'timeout', message: `Reading the PDF took longer than the ${limits.timeout} limit` },
            false,
          ),
        opts.timeoutMs,
      );
      const watch = setInterval(() => {
        void residentMb(proc).then((mb) => {
          if (mb !== undefined && mb > opts.memoryMb) memoryExceeded();
        });
      }, WATCH_MS);
      child.on('message', onMessage);
      child.once('exit', onExit);
      child.send(job, (err) => {
        if (err) settle({ ok: false, reason: 'corrupt', message: 'The PDF could not be read' }, false);
      });
    });
  }

  return {
    run(input) {
      const job: DocumentJob = {
        ...input,
        cMapDir: join(PDFJS_DIR, 'cmaps/'),
        fontDir: join(PDFJS_DIR, 'standard_fonts/'),
        toolMemoryMb: opts.memoryMb,
      };
      let proc = idle.pop();
      while (proc && !proc.alive) proc = idle.pop();
      return runIn(proc ?? startDocumentProcess(opts.script, opts.memoryMb), job);
    },
  };
}
