import type { Model } from 'mongoose';

/** Limits of a group commit: how many writes go in one batch, and how many batches may be in flight at once. */
export interface GroupCommitOptions {
  /** Items in one batch (default 64). */
  maxBatch?: number;
  /** Batches written at once (default 4). Below it an item is written at once; at it, items wait for a slot. */
  maxParallel?: number;
}

/**
 * Group commit: items that arrive while earlier batches are being written are written together, in one call of
 * `write`. Nothing waits for a timer: under light load each item is written alone at once, and batches grow only
 * as far as the load makes them, so the database sees fewer, larger writes exactly when it is busy. `write` returns
 * one outcome per item (null: written; an error: that item failed), or throws to fail every item of the batch.
 */
export function createGroupCommit<T>(write: (items: T[]) => Promise<(Error | null)[]>, opts: GroupCommitOptions = {}) {
  const maxBatch = Math.max(1, opts.maxBatch ?? 64);
  const maxParallel = Math.max(1, opts.maxParallel ?? 4);
  const pending: { item: T; resolve: () => void; reject: (err: Error) => void }[] = [];
  let inFlight = 0;

  function pump(): void {
    while (inFlight < maxParallel && pending.length > 0) {
      const batch = pending.splice(0, maxBatch);
      inFlight += 1;
      void write(batch.map((p) => p.item))
        .then(
          (outcomes) => batch.forEach((p, i) => (outcomes[i] ? p.reject(outcomes[i]) : p.resolve())),
          (err: unknown) => batch.forEach((p) => p.reject(err instanceof Error ? err : new Error(String(err)))),
        )
        .finally(() => {
          inFlight -= 1;
          pump();
        });
    }
  }

  return {
    /** Resolves once `item` is written; rejects with its own error. */
    add(item: T): Promise<void> {
      return new Promise<void>((resolve, reject) => {
        pending.push({ item, resolve, reject });
        pump();
      });
    },
    /** Batches being written now, and items waiting for one (for metrics and tests). */
    get load() {
      return { inFlight, waiting: pending.length };
    },
  };
}

export type GroupCommit<T> = ReturnType<typeof createGroupCommit<T>>;

interface WriteErrorLike {
  index: number;
  code?: number;
  errmsg?: string;
}

/** The per-document errors of an unordered bulk insert (MongoBulkWriteError's `writeErrors`), else undefined. */
function writeErrorsOf(err: unknown): WriteErrorLike[] | undefined {
  const we = (err as { writeErrors?: unknown } | null)?.writeErrors;
  if (we === undefined || we === null) return undefined;
  return (Array.isArray(we) ? we : [we]) as WriteErrorLike[];
}

/**
 * Inserts documents (already cast: plain objects with their `_id`) in one unordered `insertMany`, with one outcome
 * per document: a document refused on its own (a duplicate key) gets its own error, code and message kept, and the
 * others are written. An error that is not per document (the server unreachable) fails them all.
 */
export function insertEach<T>(model: Model<T>): (docs: object[]) => Promise<(Error | null)[]> {
  return async (docs) => {
    const outcomes: (Error | null)[] = docs.map(() => null);
    try {
      await model.collection.insertMany(docs, { ordered: false });
    } catch (err) {
      const perDoc = writeErrorsOf(err);
      if (!perDoc || perDoc.length === 0) throw err;
      for (const w of perDoc) {
        const e = Object.assign(new Error(w.errmsg ?? 'write refused'), { code: w.code });
        if (w.index >= 0 && w.index < outcomes.length) outcomes[w.index] = e;
      }
    }
    return outcomes;
  };
}
