import { randomBytes } from 'node:crypto';

import type { SecretBox } from '@platform/secrets';

const PREFIX = 'whsec_';

/** A new signing secret: `whsec_` + base64 of 32 random bytes (the OpenAPI document's Webhook `secret_key`). */
export function generateSecretKey(): string {
  return PREFIX + randomBytes(32).toString('base64');
}

/** A webhook's signing secrets, opened. */
export interface WebhookSecrets {
  secret_key: string;
  previous_secret_key: string | null;
  previous_secret_expires_at: Date | null;
}

/**
 * The secrets a trigger signature may be made with at `now`: the current one, and the one it replaced while that
 * one's grace period lasts (the expiry instant itself is already outside it, so a grace of 0 ends it at once).
 */
export function verificationSecrets(webhook: WebhookSecrets, now: Date): string[] {
  const { secret_key, previous_secret_key: previous, previous_secret_expires_at: expires } = webhook;
  const previousValid = previous !== null && expires !== null && expires.getTime() > now.getTime();
  return previousValid && previous !== secret_key ? [secret_key, previous] : [secret_key];
}

/** What a stored webhook holds of its secrets, sealed. */
export interface SealedWebhookSecrets {
  secret_key_sealed: string;
  previous_secret_key_sealed: string | null;
  previous_secret_expires_at: Date | null;
}

/** Opens a webhook's sealed secrets (the one place they are unsealed). */
export function openWebhookSecrets(box: SecretBox, w: SealedWebhookSecrets): WebhookSecrets {
  return {
    secret_key: box.decrypt(w.secret_key_sealed),
    previous_secret_key: w.previous_secret_key_sealed ? box.decrypt(w.previous_secret_key_sealed) : null,
    previous_secret_expires_at: w.previous_secret_expires_at,
  };
}
