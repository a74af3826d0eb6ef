// Generated from webhook.schemas.ts by `pnpm schemas:types` (scripts/schema-types.cjs): edit the schemas, not this file.

export interface BulkPauseResult {
  message: string;
  total_requested: number;
  paused_count: number;
  already_paused_count: number;
  not_found_count: number;
  invalid_count: number;
  paused_webhooks: Webhook[];
}

export interface WebhookCreateBody {
  agent_id: string;
  description?: string | null;
  /**
   * Runs of this webhook in flight at once across every worker (1–1000); runs over it wait queued, in order. Null or absent: no limit.
   */
  max_concurrency?: number | null;
  /**
   * Where the platform POSTs {type: "execution.ended", data: <execution>} when a run ends, signed per Standard Webhooks with callback_secret (http or https, at most 2048 characters). Null: no callback. A run keeps the target it was created with. A literal loopback, private or link-local address not in OUTBOUND_ALLOW_HOSTS → 422 (type url.refused).
   */
  callback_url?: string | null;
}

export interface WebhookListQuery {
  agent_id?: string;
  is_active?: boolean;
  /**
   * Items to skip
   */
  skip: number;
  /**
   * Items to return at most
   */
  limit: number;
}

export interface WebhookRegenerateQuery {
  grace_seconds: number;
}

export interface WebhookTriggerAccepted {
  message: string;
  execution_id: string;
  status: 'queued';
}

export interface WebhookTriggerReplayed {
  message: string;
  execution_id: string;
  status: 'queued' | 'running' | 'succeeded' | 'failed' | 'skipped';
}

export interface WebhookUpdateBody {
  description?: string | null;
  /**
   * Runs of this webhook in flight at once across every worker (1–1000); runs over it wait queued, in order. Null or absent: no limit.
   */
  max_concurrency?: number | null;
  /**
   * Where the platform POSTs {type: "execution.ended", data: <execution>} when a run ends, signed per Standard Webhooks with callback_secret (http or https, at most 2048 characters). Null: no callback. A run keeps the target it was created with. A literal loopback, private or link-local address not in OUTBOUND_ALLOW_HOSTS → 422 (type url.refused).
   */
  callback_url?: string | null;
}

export interface Webhook {
  id: string;
  agent_id: string;
  user_id: string;
  description: string | null;
  webhook_url: string;
  /**
   * whsec_ + base64 of 32 random bytes
   */
  secret_key: string;
  is_active: boolean;
  created_at: string;
  updated_at: string | null;
  last_triggered_at: string | null;
  last_trigger_success: boolean | null;
  trigger_count: number;
  /**
   * Runs in flight at once; null: no limit
   */
  max_concurrency: number | null;
  /**
   * Where the platform POSTs {type: "execution.ended", data: <execution>} when a run ends, signed per Standard Webhooks with callback_secret (http or https, at most 2048 characters). Null: no callback. A run keeps the target it was created with. A literal loopback, private or link-local address not in OUTBOUND_ALLOW_HOSTS → 422 (type url.refused).
   */
  callback_url: string | null;
  /**
   * whsec_ + base64 of the signing key of the callbacks. Present only in the answer of the request that generated it (a create or PATCH that set the first callback_url, and regenerate-callback-secret); never shown again.
   */
  callback_secret?: string;
}

export interface WebhookList {
  webhooks: Webhook[];
  total: number;
}

export interface WebhookPath {
  webhook_id: string;
}
