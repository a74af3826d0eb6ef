import { iso } from '@platform/db';
import type { SecretBox } from '@platform/secrets';

import type { Webhook, WebhookRecord } from './webhook.types';

/**
 * The OpenAPI document's Webhook object (`webhook.schemas.ts`): exactly its fields, the secret opened (`box`);
 * `base` is the scheduler's public base URL without a trailing slash.
 */
export function presentWebhook(r: WebhookRecord, base: string, box: SecretBox): Webhook {
  return {
    id: r.id,
    agent_id: r.agent_id,
    user_id: r.user_id,
    description: r.description,
    webhook_url: `${base}/webhook-trigger/${r.id}`,
    secret_key: box.decrypt(r.secret_key_sealed),
    is_active: r.is_active,
    created_at: r.created_at.toISOString(),
    updated_at: iso(r.updated_at),
    last_triggered_at: iso(r.last_triggered_at),
    last_trigger_success: r.last_trigger_success,
    trigger_count: r.trigger_count,
    max_concurrency: r.max_concurrency,
    callback_url: r.callback_url,
  };
}
