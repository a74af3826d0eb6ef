import { modelFor, mongoose, type Connection, type Model } from '@platform/db';

import type { WebhookRecord } from './webhook.types';

/** The stored document: the repository's record with MongoDB's `_id` in place of `id`. */
export interface WebhookDoc extends Omit<
  WebhookRecord,
  'id' | 'max_concurrency' | 'callback_url' | 'callback_secret_sealed'
> {
  _id: mongoose.Types.ObjectId;
  /** Absent in documents written before it existed: no limit. */
  max_concurrency?: number | null;
  /** Absent in documents written before completion callbacks existed: none. */
  callback_url?: string | null;
  callback_secret_sealed?: string | null;
}

const webhookSchema = new mongoose.Schema<WebhookDoc>(
  {
    user_id: { type: String, required: true },
    org_id: { type: String, required: true },
    agent_id: { type: String, required: true },
    description: { type: String, default: null },
    secret_key_sealed: { type: String, required: true },
    previous_secret_key_sealed: { type: String, default: null },
    previous_secret_expires_at: { type: Date, default: null },
    is_active: { type: Boolean, default: true },
    created_at: { type: Date, required: true },
    updated_at: { type: Date, default: null },
    last_triggered_at: { type: Date, default: null },
    last_trigger_success: { type: Boolean, default: null },
    trigger_count: { type: Number, default: 0 },
    max_concurrency: { type: Number, default: null },
    callback_url: { type: String, default: null },
    callback_secret_sealed: { type: String, default: null },
  },
  { versionKey: false },
);
// One index per list filter, each ending in the list order (newest first).
webhookSchema.index({ user_id: 1, org_id: 1, created_at: -1, _id: -1 });
webhookSchema.index({ user_id: 1, org_id: 1, agent_id: 1, created_at: -1, _id: -1 });
webhookSchema.index({ user_id: 1, org_id: 1, is_active: 1, created_at: -1, _id: -1 });

/** The webhooks collection. Every update of it goes through `atomicUpdateOne` (see libs/db). */
export function webhookModel(conn: Connection): Model<WebhookDoc> {
  return modelFor(conn, 'Webhook', webhookSchema, 'webhooks');
}
