import type { Connection, Model } from 'mongoose';

import { isDuplicateKeyError } from './duplicate-key';
import { retryWriteOnce } from './retry-write';

/** Limits of a group commit: how many writes go in one batch, and how many batches may be in flight at once. */
export interface GroupCommitOptions {
  /** Items in one batch (default 64). */
  maxBatch?: number;
  /** Batches written at once (default 4). Below it an item is written at once; at it, items wait for a slot. */
  maxParallel?: number;
  /**
   * Milliseconds a batch waits for more items before it is written when a slot is free (default 0: at once). For
   * writes off any caller's critical path of latency (a run's claim before a call that takes seconds), where a
   * few milliseconds buy much larger batches.
   */
  gatherMs?: number;
}

/**
 * Group commit: items that arrive while earlier batches are being written are written together, in one call of
 * `write`. Nothing waits for a timer: under light load each item is written alone at once, and batches grow only
 * as far as the load makes them, so the database sees fewer, larger writes exactly when it is busy. `write` returns
 * one outcome per item (an error: that item failed; anything else: its result, e.g. null for "written" or the
 * updated document), or throws to fail every item of the batch.
 */
export function createGroupCommit<T, R = null>(
  write: (items: T[]) => Promise<(Error | R)[]>,
  opts: GroupCommitOptions = {},
) {
  const maxBatch = Math.max(1, opts.maxBatch ?? 64);
  const maxParallel = Math.max(1, opts.maxParallel ?? 4);
  const gatherMs = Math.max(0, opts.gatherMs ?? 0);
  const pending: { item: T; resolve: (r: R) => void; reject: (err: Error) => void }[] = [];
  let inFlight = 0;
  let gathering: NodeJS.Timeout | null = null;

  /** A new item: written at once, or (gatherMs) once the batch it starts has waited for company or is full. */
  function pump(): void {
    if (gatherMs > 0 && pending.length < maxBatch && inFlight < maxParallel) {
      gathering ??= setTimeout(write_, gatherMs);
      return;
    }
    write_();
  }

  /** Writes what is pending while a slot is free; a batch that ends makes room for the items that waited meanwhile. */
  function write_(): void {
    if (gathering) clearTimeout(gathering);
    gathering = null;
    while (inFlight < maxParallel && pending.length > 0) {
      const batch = pending.splice(0, maxBatch);
      inFlight += 1;
      void write(batch.map((p) => p.item))
        .then(
          (outcomes) =>
            batch.forEach((p, i) => {
              const o = outcomes[i] as Error | R;
              if (o instanceof Error) p.reject(o);
              else p.resolve(o);
            }),
          (err: unknown) => batch.forEach((p) => p.reject(err instanceof Error ? err : new Error(String(err)))),
        )
        .finally(() => {
          inFlight -= 1;
          write_();
        });
    }
  }

  return {
    /** Resolves with `item`'s result once it is written; rejects with its own error. */
    add(item: T): Promise<R> {
      return new Promise<R>((resolve, reject) => {
        pending.push({ item, resolve, reject });
        pump();
      });
    },
    /**
     * Several items that belong together (the two messages of one turn): queued at once, so that they go in the same
     * batch (unless it fills), never one alone ahead of the others. Resolves with their results in order.
     */
    addAll(items: readonly T[]): Promise<R[]> {
      const each = items.map((item) => new Promise<R>((resolve, reject) => pending.push({ item, resolve, reject })));
      if (items.length > 0) pump();
      return Promise.all(each);
    },
    /** Batches being written now, and items waiting for one (for metrics and tests). */
    get load() {
      return { inFlight, waiting: pending.length };
    },
  };
}

export type GroupCommit<T, R = null> = ReturnType<typeof createGroupCommit<T, R>>;

interface WriteErrorLike {
  index: number;
  code?: number;
  errmsg?: string;
}

/**
 * The per-operation errors of an unordered bulk write or insert (MongoBulkWriteError's `writeErrors`, each with the
 * index of its operation), else undefined (the whole command failed).
 */
export function writeErrorsOf(err: unknown): WriteErrorLike[] | undefined {
  const we = (err as { writeErrors?: unknown } | null)?.writeErrors;
  if (we === undefined || we === null) return undefined;
  return (Array.isArray(we) ? we : [we]) as WriteErrorLike[];
}

export interface InsertEachOptions {
  /**
   * Retry a batch once when it fails with a retryable error (retryWriteOnce): a document refused on the retry as a
   * duplicate key although a document with its `_id` is stored (read from the primary) was stored by the first
   * attempt, and counts as written. Only for documents whose `_id` is theirs alone (made for them, never shared).
   */
  retry?: boolean;
  /** Write concern of the inserts (default: the connection's). */
  writeConcern?: { w?: 'majority' | number; wtimeoutMS?: number };
}

/**
 * Inserts documents (already cast: plain objects with their `_id`) in one unordered `insertMany`, with one outcome
 * per document: a document refused on its own (a duplicate key) gets its own error, code and message kept, and the
 * others are written. An error that is not per document (the server unreachable) fails them all.
 */
export function insertEach<T>(
  model: Model<T>,
  opts: InsertEachOptions = {},
): (docs: object[]) => Promise<(Error | null)[]> {
  const once = async (docs: object[], retry: boolean): Promise<(Error | null)[]> => {
    const outcomes: (Error | null)[] = docs.map(() => null);
    try {
      await model.collection.insertMany(docs, {
        ordered: false,
        ...(opts.writeConcern ? { writeConcern: opts.writeConcern } : {}),
      });
    } catch (err) {
      const perDoc = writeErrorsOf(err);
      if (!perDoc || perDoc.length === 0) throw err;
      for (const w of perDoc) {
        // Named as the driver names a per-document write error, so that it is classified as the server's errors are:
        // a document refused because the store went away mid-batch is a 503, a duplicate stays a duplicate.
        const e = Object.assign(new Error(w.errmsg ?? 'write refused'), { name: 'WriteError', code: w.code });
        if (w.index >= 0 && w.index < outcomes.length) outcomes[w.index] = e;
      }
    }
    if (retry) await forgiveLanded(model, docs, outcomes);
    return outcomes;
  };
  return opts.retry ? (docs) => retryWriteOnce((retry) => once(docs, retry)) : (docs) => once(docs, false);
}

/**
 * On a retry: a document refused as a duplicate whose `_id` is stored was written by the attempt whose reply was
 * lost. Each is read alone by `_id` (an equality FerretDB serves from an index; `$in` it would not), from the primary.
 */
async function forgiveLanded<T>(model: Model<T>, docs: object[], outcomes: (Error | null)[]): Promise<void> {
  await Promise.all(
    outcomes.map(async (o, i) => {
      if (o === null || !isDuplicateKeyError(o)) return;
      const id = (docs[i] as { _id?: unknown })._id;
      if (id === undefined) return;
      const found = await model.collection.findOne({ _id: id } as never, {
        projection: { _id: 1 },
        readPreference: 'primary',
      });
      if (found !== null) outcomes[i] = null;
    }),
  );
}

/**
 * One value per connection, made on first use: the group commits over a connection's collections are shared by every
 * repository made on it, so that the writes of all of them are gathered together (a repository is often made per
 * request or per service).
 */
export function perConnection<T>(make: (conn: Connection) => T): (conn: Connection) => T {
  const made = new WeakMap<Connection, T>();
  return (conn) => {
    let value = made.get(conn);
    if (value === undefined) {
      value = make(conn);
      made.set(conn, value);
    }
    return value;
  };
}
