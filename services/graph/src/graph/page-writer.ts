import type { TrainedPage } from './graph.types';

/** Pages waiting for their write at most; a crawl that gets this far ahead waits for the database. */
export const MAX_PENDING_PAGES = 64;
/** Pages written by one batch at most. */
export const MAX_BATCH_PAGES = 32;
/**
 * Batches being written at once (a crawl's pages are distinct, so batches do not depend on each other). One: the
 * batches of a crawl then reach the graph's index log in order, each taking the next sequence number without racing
 * the crawl's other batch for it, and a training puts one write at a time on the database however fast it crawls.
 */
export const MAX_BATCHES_IN_FLIGHT = 1;

export interface PageWriterDeps {
  /** Writes a batch of trained pages (their chunks, entities, relations, pages and one index change). */
  write(pages: TrainedPage[]): Promise<void>;
  /** After each batch is stored. */
  onWritten(pages: TrainedPage[]): Promise<void>;
}

/**
 * Group commit of trained pages: a page is taken at once and written with the others that arrived while the
 * previous batch was being written, so that a crawl of many pages costs a few database commands
 * per batch rather than ten per page. The crawl runs at most `MAX_PENDING_PAGES` ahead of the database. A failed write fails the
 * pages after it (`write` and `close` throw it): nothing is reported trained that was not stored.
 */
export function createPageWriter(deps: PageWriterDeps) {
  const pending: TrainedPage[] = [];
  const flushing = new Set<Promise<void>>();
  let failure: Error | null = null;
  const failed = (): boolean => failure !== null;
  const rethrow = (): void => {
    if (failure) throw failure;
  };

  /** Starts a writer loop if fewer than MAX_BATCHES_IN_FLIGHT run; resolves when one of them ends. */
  function kick(): Promise<void> {
    if (flushing.size < MAX_BATCHES_IN_FLIGHT && pending.length > 0) {
      const run = async () => {
        try {
          while (pending.length > 0 && !failure) {
            const batch = pending.splice(0, MAX_BATCH_PAGES);
            await deps.write(batch);
            await deps.onWritten(batch);
          }
        } catch (err) {
          failure ??= err as Error;
        }
      };
      const loop: Promise<void> = run().finally(() => flushing.delete(loop));
      flushing.add(loop);
    }
    return flushing.size > 0 ? Promise.race(flushing) : Promise.resolve();
  }

  return {
    /** Takes a trained page; waits only while too many are pending. */
    async write(page: TrainedPage): Promise<void> {
      rethrow();
      pending.push(page);
      void kick();
      while (pending.length >= MAX_PENDING_PAGES && !failed()) await kick();
      rethrow();
    },
    /** Writes what is pending; throws the first write failure. */
    async close(): Promise<void> {
      while ((pending.length > 0 || flushing.size > 0) && !failed()) await kick();
      rethrow();
    },
  };
}
