import type { Owner } from '@platform/db';

import type { BulkPauseCounts } from '../shared/bulk-pause';

export type { ListFilter, Owner } from '@platform/db';

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
}

/** The Webhook object of the interface spec: exactly its fields. */
export interface Webhook {
  id: string;
  agent_id: string;
  user_id: string;
  description: string | null;
  webhook_url: string;
  secret_key: string;
  is_active: boolean;
  created_at: string;
  updated_at: string | null;
  last_triggered_at: string | null;
  last_trigger_success: boolean | null;
  trigger_count: number;
}

export interface WebhookList {
  webhooks: Webhook[];
  total: number;
}

/** The spec's BulkPauseResult: the shared counts, and the webhooks this request paused. */
export type BulkPauseResult = Omit<BulkPauseCounts<Webhook>, 'paused'> & { paused_webhooks: Webhook[] };

export interface CreateWebhookInput {
  agent_id: string;
  description?: string | null;
}

export interface UpdateWebhookInput {
  description?: string | null;
}
