/**
 * Bounds the documents one process reads at once. A document beyond the bound waits for a free slot, at most
 * `waitMs` and behind at most `maxQueued` others; past either it is refused with 503 and Retry-After, so a burst of
 * uploads degrades into quick refusals rather than a pile of half-read documents.
 */
import { AppError } from '@platform/errors';

export interface LimiterOptions {
  concurrency: number;
  maxQueued: number;
  waitMs: number;
}

export interface DocumentLimiter {
  /** Runs `work` once a slot is free; throws the 503 when none frees up in time. */
  run<T>(work: () => Promise<T>): Promise<T>;
  /** Documents being read and documents waiting, for metrics and tests. */
  load(): { running: number; waiting: number };
}

interface Waiter {
  grant(): void;
}

export function createDocumentLimiter(opts: LimiterOptions): DocumentLimiter {
  let running = 0;
  const queue: Waiter[] = [];
  const busy = () =>
    new AppError(503, 'Too many documents are being read; retry later', {
      headers: { 'Retry-After': String(Math.max(1, Math.ceil(opts.waitMs / 1000))) },
    });

  const acquire = (): Promise<void> => {
    if (running < opts.concurrency) {
      running++;
      return Promise.resolve();
    }
    if (queue.length >= opts.maxQueued) return Promise.reject(busy());
    return new Promise<void>((resolve, reject) => {
      const waiter: Waiter = {
        grant: () => {
          clearTimeout(timer);
          running++;
          resolve();
        },
      };
      const timer = setTimeout(() => {
        queue.splice(queue.indexOf(waiter), 1);
        reject(busy());
      }, opts.waitMs);
      queue.push(waiter);
    });
  };
  const release = () => {
    running--;
    queue.shift()?.grant();
  };

  return {
    async run(work) {
      await acquire();
      try {
        return await work();
      } finally {
        release();
      }
    },
    load: () => ({ running, waiting: queue.length }),
  };
}
