import { modelFor, mongoose, type Connection, type StoredDoc } from '@platform/db';

const webhookSchema = new mongoose.Schema(
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
webhookSchema.index({ user_id: 1, org_id: 1, agent_id: 1, is_active: 1, created_at: -1, _id: -1 });
// The concurrency limits republished every minute: only the webhooks that have one.
webhookSchema.index({ max_concurrency: 1 });

/** A stored webhook, as the schema types it. */
export type WebhookDoc = StoredDoc<typeof webhookSchema>;

/** The webhooks collection. */
export function webhookModel(conn: Connection) {
  return modelFor(conn, 'Webhook', webhookSchema, 'webhooks');
}
