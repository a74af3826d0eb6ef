import mongoose, { type Connection } from 'mongoose';

import { modelFor } from './connect';

const OBJECT_ID = /^[0-9a-f]{24}$/;

/** True for a 24-character lowercase hex id, the API's id format for stored objects. */
export function isObjectIdHex(id: unknown): id is string {
  return typeof id === 'string' && OBJECT_ID.test(id);
}

/** A new 24-char lowercase hex id. */
export function newObjectId(): string {
  return new mongoose.Types.ObjectId().toHexString();
}

/** ISO 8601 UTC with `Z`, or null. */
export function iso(value: Date | string | null | undefined): string | null {
  if (value === null || value === undefined) return null;
  return new Date(value).toISOString();
}

/**
 * Free-form client JSON (webhook payloads, JSON Schemas, provider parameters) is stored as JSON text: a document
 * store refuses some keys (`$`-prefixed, dotted), yet a client's JSON must come back exactly as sent. `undefined` and
 * null are stored as null.
 */
export function toJsonText(value: unknown): string | null {
  return value === undefined || value === null ? null : JSON.stringify(value);
}

/** Reads what `toJsonText` wrote; `legacy` is the value of a document written before the field was JSON text. */
export function fromJsonText(text: unknown, legacy: unknown = null): unknown {
  return typeof text === 'string' ? (JSON.parse(text) as unknown) : (legacy ?? null);
}

/** A stored object's owner: every query of an owner's objects is scoped to both. */
export interface Owner {
  user_id: string;
  org_id: string;
}

/** The equality filter that scopes a query to `owner`. */
export const ownerFilter = (owner: Owner): { user_id: string; org_id: string } => ({
  user_id: owner.user_id,
  org_id: owner.org_id,
});
/** The owner as one string (a cache's scope): equal exactly when `ownerFilter` is. */
export const ownerKey = (owner: Owner): string => `${owner.user_id}\u0000${owner.org_id}`;

const counterSchema = new mongoose.Schema(
  { _id: String, seq: { type: Number, required: true } },
  { versionKey: false },
);

/**
 * A monotonically increasing integer sequence stored in the `counters` collection: one `$inc` with upsert, which
 * returns the value it made. Used for integer ids such as agents'.
 */
export function createSequence(conn: Connection, name: string, start = 1): () => Promise<number> {
  const Counter = modelFor(conn, 'Counter', counterSchema, 'counters');
  return async () => {
    const doc = await Counter.findOneAndUpdate(
      { _id: name },
      { $inc: { seq: 1 } },
      { upsert: true, returnDocument: 'after' },
    ).lean();
    if (!doc) throw new Error(`sequence ${name} did not advance`);
    return doc.seq + start - 1;
  };
}
