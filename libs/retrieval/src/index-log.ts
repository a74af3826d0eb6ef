import { randomBytes } from 'node:crypto';

import { isDuplicateKeyError, modelFor, mongoose, type Connection, type StoredDoc } from '@platform/db';

import type { IndexedChunk } from './lexical-index';
import type { IndexChange, IndexHead, LiveIndexStore, SnapshotRef } from './live-index';

/**
 * The change log, heads and snapshots of search indexes in MongoDB (what `createLiveIndexes` reads): one head per
 * rag id (`seq`, the newest snapshot and the one before it), one document per change (`<rag id>:<seq>`), snapshots
 * in parts (`<snapshot id>:<part>`). Every read is by `_id`; the deletions of old changes and parts have an index each.
 */

/** Bytes of one stored part of a snapshot (documents stay well under the 16 MB limit). */
export const SNAPSHOT_PART_BYTES = 4 * 1024 * 1024;
/** Changes kept behind the newest snapshot, for replicas a little behind it. */
export const CHANGES_KEPT_BEHIND_SNAPSHOT = 1_000;
/** Estimated size of one change at most: a larger batch of chunks is written as several changes. */
export const CHANGE_BYTES = 4 * 1024 * 1024;
/** Reads of one snapshot's parts at once. */
const PART_READS = 4;

/** Collection names of one service's index log, and the prefix of its model names. */
export interface IndexLogNames {
  heads: string;
  changes: string;
  parts: string;
  /** Prefix of the mongoose model names (unique per service sharing a connection). */
  models: string;
}

const headSchema = new mongoose.Schema(
  {
    _id: { type: String, required: true },
    seq: Number,
    snapshot_id: String,
    snapshot_seq: Number,
    snapshot_parts: Number,
    previous_snapshot_id: { type: String, default: null },
  },
  { versionKey: false, strict: false },
);

const changeSchema = new mongoose.Schema(
  {
    _id: { type: String, required: true },
    rag_id: { type: String, required: true },
    seq: { type: Number, required: true },
    reset: { type: Boolean, default: false },
    remove_urls: { type: [String], default: [] },
    // Written and read through the driver as they are (a schema per chunk would only copy them).
    add: { type: mongoose.Schema.Types.Mixed, default: [] },
  },
  { versionKey: false },
);
changeSchema.index({ rag_id: 1, seq: 1 });

const partSchema = new mongoose.Schema(
  {
    _id: { type: String, required: true },
    rag_id: { type: String, required: true },
    snapshot_id: { type: String, required: true },
    data: { type: Buffer, required: true },
  },
  { versionKey: false },
);
partSchema.index({ snapshot_id: 1 });

/** A rag id's head: its newest change (`seq`), its newest snapshot and the one before it. */
export type IndexHeadDoc = StoredDoc<typeof headSchema, string>;
/** One change of a rag id's index (`_id` `<rag id>:<seq>`). */
export type IndexChangeDoc = Omit<StoredDoc<typeof changeSchema, string>, 'add'> & { add: IndexedChunk[] };
/** One part of a snapshot (`_id` `<snapshot id>:<part>`). */
export type IndexPartDoc = StoredDoc<typeof partSchema, string>;

/** The log's models (services create them at startup, so their collections exist before any load). */
export const indexLogModels = (conn: Connection, names: IndexLogNames) => ({
  Head: modelFor(conn, `${names.models}IndexHead`, headSchema, names.heads),
  Change: modelFor(conn, `${names.models}IndexChange`, changeSchema, names.changes),
  Part: modelFor(conn, `${names.models}IndexPart`, partSchema, names.parts),
});

export type IndexLogStore = Pick<LiveIndexStore, 'head' | 'changes' | 'readSnapshot' | 'writeSnapshot'>;

type IndexLogModels = ReturnType<typeof indexLogModels>;

/**
 * Writes one change with the next sequence number and then advances the head to it. A number is taken by
 * inserting its `_id`, and the head moves only after: whoever reads head H finds every change up to H.
 */
async function appendOne(m: IndexLogModels, ragId: string, change: Omit<IndexChange, 'seq'>): Promise<number> {
  const head = await m.Head.findOne({ _id: ragId }, { seq: 1 }).lean();
  let seq = (head?.seq ?? 0) + 1;
  for (;;) {
    try {
      await m.Change.collection.insertOne({
        _id: `${ragId}:${seq}`,
        rag_id: ragId,
        seq,
        reset: change.reset ?? false,
        remove_urls: change.removeUrls,
        add: change.add,
      } as never);
      break;
    } catch (err) {
      if (!isDuplicateKeyError(err)) throw err;
      seq++; // another writer took it
    }
  }
  await m.Head.updateOne({ _id: ragId }, { $max: { seq } }, { upsert: true });
  return seq;
}

/** A snapshot's bytes from its parts; null when one is gone. */
async function readParts(m: IndexLogModels, ref: SnapshotRef): Promise<Buffer | null> {
  const parts: Buffer[] = [];
  for (let i = 0; i < ref.parts; i += PART_READS) {
    const ids = Array.from({ length: Math.min(PART_READS, ref.parts - i) }, (_, k) => `${ref.id}:${i + k}`);
    const docs = await Promise.all(ids.map((id) => m.Part.findOne({ _id: id }).lean()));
    for (const d of docs) {
      if (!d) return null;
      const data = d.data as unknown as Buffer | { buffer: Buffer };
      parts.push(Buffer.isBuffer(data) ? data : Buffer.from(data.buffer));
    }
  }
  return Buffer.concat(parts);
}

/** Stores a snapshot in parts and makes it the head's newest, unless a newer one is there or another replica's won. */
async function writeParts(m: IndexLogModels, ragId: string, seq: number, data: Buffer): Promise<void> {
  const head = await m.Head.findOne({ _id: ragId }).lean();
  if (head?.snapshot_seq != null && head.snapshot_seq >= seq) return; // a newer one is there
  const id = `${ragId}:${seq}:${randomBytes(6).toString('hex')}`;
  const count = Math.max(1, Math.ceil(data.length / SNAPSHOT_PART_BYTES));
  for (let i = 0; i < count; i++)
    await m.Part.collection.insertOne({
      _id: `${id}:${i}`,
      rag_id: ragId,
      snapshot_id: id,
      data: data.subarray(i * SNAPSHOT_PART_BYTES, (i + 1) * SNAPSHOT_PART_BYTES),
    } as never);
  // The head moves only from the snapshot it had (another replica may have written one meanwhile).
  const flipped = await m.Head.updateOne(
    { _id: ragId, snapshot_id: head?.snapshot_id ?? { $exists: false } },
    {
      $set: {
        snapshot_id: id,
        snapshot_seq: seq,
        snapshot_parts: count,
        previous_snapshot_id: head?.snapshot_id ?? null,
      },
    },
    { upsert: !head },
  );
  if (flipped.modifiedCount === 0 && flipped.upsertedCount === 0) {
    await m.Part.deleteMany({ snapshot_id: id });
    return;
  }
  // The one before the previous is nobody's any more; nor are changes well behind this snapshot.
  if (head?.previous_snapshot_id) await m.Part.deleteMany({ snapshot_id: head.previous_snapshot_id });
  const behind = seq - CHANGES_KEPT_BEHIND_SNAPSHOT;
  if (behind > 0) await m.Change.deleteMany({ rag_id: ragId, seq: { $lte: behind } });
}

export function createIndexLog(conn: Connection, names: IndexLogNames) {
  const m = indexLogModels(conn, names);

  const store: IndexLogStore = {
    async head(ragId): Promise<IndexHead> {
      const d = await m.Head.findOne({ _id: ragId }).lean();
      const snapshot: SnapshotRef | null =
        d?.snapshot_id && d.snapshot_seq != null && d.snapshot_parts != null
          ? { id: d.snapshot_id, seq: d.snapshot_seq, parts: d.snapshot_parts }
          : null;
      return { seq: d?.seq ?? 0, snapshot };
    },
    async changes(ragId, seqs) {
      const docs = await Promise.all(
        seqs.map((n) => m.Change.findOne({ _id: `${ragId}:${n}` }).lean<IndexChangeDoc>()),
      );
      return docs.map((d) => (d ? { seq: d.seq, reset: d.reset, removeUrls: d.remove_urls, add: d.add } : null));
    },
    readSnapshot: (_ragId, ref) => readParts(m, ref),
    writeSnapshot: (ragId, seq, data) => writeParts(m, ragId, seq, data),
  };

  return {
    store,
    /**
     * Appends a change: chunks added (and urls removed, or everything with `reset`). Chunks of more than
     * `CHANGE_BYTES` go as several changes, the first carrying the removals.
     */
    async append(ragId: string, change: Omit<IndexChange, 'seq'>): Promise<void> {
      let slice: IndexedChunk[] = [];
      let bytes = 0;
      let first = true;
      const flush = async () => {
        await appendOne(m, ragId, {
          reset: first ? change.reset : false,
          removeUrls: first ? change.removeUrls : [],
          add: slice,
        });
        first = false;
        slice = [];
        bytes = 0;
      };
      for (const c of change.add) {
        slice.push(c);
        bytes += 2 * c.text.length + 9 * (c.embedding?.length ?? 0) + 200;
        if (bytes >= CHANGE_BYTES) await flush();
      }
      if (first || slice.length > 0) await flush();
    },
  };
}

export type IndexLog = ReturnType<typeof createIndexLog>;
