import { createHash } from 'node:crypto';

import { isDuplicateKeyError, modelFor, mongoose, type Connection } from '@platform/db';

interface KeyDoc {
  _id: string;
  execution_id: string;
  created_at: Date;
}

const schema = new mongoose.Schema<KeyDoc>(
  { _id: String, execution_id: { type: String, required: true }, created_at: { type: Date, required: true } },
  { versionKey: false },
);
schema.index({ created_at: 1 });

/** How long an idempotency key is remembered. */
export const IDEMPOTENCY_WINDOW_MS = 24 * 3600 * 1000;

/**
 * Idempotency keys per scope (a webhook), remembered for 24 h. Claims are unique-index inserts, atomic on both
 * MongoDB and FerretDB; expired keys are replaced by an atomic delete, and swept (no TTL indexes on FerretDB).
 */
export function createIdempotencyStore(conn: Connection) {
  const Key = modelFor(conn, 'IdempotencyKey', schema, 'idempotency_keys');
  const idOf = (scope: string, key: string) => createHash('sha256').update(`${scope}\n${key}`).digest('hex');
  return {
    /** Claims `key` for `executionId`; returns the execution id that holds it (ours, or the earlier one's). */
    async claim(scope: string, key: string, executionId: string, now: Date): Promise<string> {
      const _id = idOf(scope, key);
      for (let i = 0; i < 5; i++) {
        try {
          await Key.create({ _id, execution_id: executionId, created_at: now });
          return executionId;
        } catch (err) {
          if (!isDuplicateKeyError(err)) throw err;
        }
        const existing = await Key.findById(_id).lean<KeyDoc>();
        if (!existing) continue;
        if (now.getTime() - existing.created_at.getTime() < IDEMPOTENCY_WINDOW_MS) return existing.execution_id;
        await Key.deleteOne({ _id, created_at: existing.created_at });
      }
      throw new Error('idempotency key kept changing hands');
    },
    async sweep(now: Date): Promise<number> {
      const r = await Key.deleteMany({ created_at: { $lt: new Date(now.getTime() - IDEMPOTENCY_WINDOW_MS) } });
      return r.deletedCount;
    },
    async init(): Promise<void> {
      await Key.init();
    },
  };
}

export type IdempotencyStore = ReturnType<typeof createIdempotencyStore>;
