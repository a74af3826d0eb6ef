import type { Owner } from '@platform/db';

export type { ListFilter, Owner } from '@platform/db';
export type {
  BulkPauseResult,
  Webhook,
  WebhookCreateBody as CreateWebhookInput,
  WebhookList,
  WebhookUpdateBody as UpdateWebhookInput,
} from './webhook.schemas.types';

/** A stored webhook as the repository returns it: plain values, secrets still sealed. */
export interface WebhookRecord extends Owner {
  id: string;
  agent_id: string;
  description: string | null;
  /** AES-256-GCM sealed `secret_key`; the plaintext is never stored. */
  secret_key_sealed: string;
  /** The secret before the last regeneration, sealed, kept for its grace period. */
  previous_secret_key_sealed: string | null;
  previous_secret_expires_at: Date | null;
  is_active: boolean;
  created_at: Date;
  updated_at: Date | null;
  last_triggered_at: Date | null;
  last_trigger_success: boolean | null;
  trigger_count: number;
  /** Contract §8: runs in flight at once; null: no limit. */
  max_concurrency: number | null;
  /** Contract §8: where its runs' completion callbacks go; null: none. */
  callback_url: string | null;
  /** The callback signing secret sealed with the schedule secret box (the worker opens it to sign); null: none. */
  callback_secret_sealed: string | null;
}
