import { createHash } from 'node:crypto';

import { isDuplicateKeyError, modelFor, mongoose, type Connection } from '@platform/db';

/** How long an idempotency key is remembered. */
export const IDEMPOTENCY_WINDOW_MS = 24 * 3600 * 1000;

const schema = new mongoose.Schema(
  { _id: String, execution_id: { type: String, required: true }, created_at: { type: Date, required: true } },
  { versionKey: false },
);
// Keys go once their window has passed (the server's TTL monitor; until then a claim sees them as expired).
schema.index({ created_at: 1 }, { expireAfterSeconds: IDEMPOTENCY_WINDOW_MS / 1000 });

/**
 * Idempotency keys per scope (a webhook), remembered for 24 h. A claim is a unique-index insert; a key whose window
 * has passed but that the TTL monitor has not removed yet is taken over by a conditional update on its time.
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
        const existing = await Key.findById(_id).lean();
        if (!existing) continue;
        if (now.getTime() - existing.created_at.getTime() < IDEMPOTENCY_WINDOW_MS) return existing.execution_id;
        const taken = await Key.updateOne(
          { _id, created_at: existing.created_at },
          { $set: { execution_id: executionId, created_at: now } },
        );
        if (taken.modifiedCount === 1) return executionId;
      }
      throw new Error('idempotency key kept changing hands');
    },
    async init(): Promise<void> {
      await Key.init();
    },
  };
}

export type IdempotencyStore = ReturnType<typeof createIdempotencyStore>;
