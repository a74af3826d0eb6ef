import type { AgentDirectory } from '@platform/agent-client';
import type { AllowEntry } from '@platform/outbound';
import type { LimitPublisher } from '@platform/queue';
import type { SecretBox } from '@platform/secrets';

import type { CallbackSecretsService } from '../shared/callback-config';
import type { WebhookRepository } from './webhook.repository';
import type { Owner, Webhook, WebhookRecord } from './webhook.types';

export interface WebhookServiceDeps {
  repo: WebhookRepository;
  agents: AgentDirectory;
  /** Seals signing secrets at rest. */
  box: SecretBox;
  /** Seals callback secrets at rest: the schedule secret box, whose key the worker holds to sign deliveries. */
  callbackBox: SecretBox;
  clock: () => Date;
  /** Public base URL of the scheduler; webhook_url is this + /webhook-trigger/<id>. */
  publicBaseUrl: string;
  newSecret?: () => string;
  newCallbackSecret?: () => string;
  /** Publishes `max_concurrency` for the worker on create, update and delete; unset: not published. */
  limits?: LimitPublisher;
  /** Hosts a callback may name although loopback or private (OUTBOUND_ALLOW_HOSTS, as the worker's). */
  allow?: AllowEntry[];
}

/**
 * What the parts of the webhook service (webhook.service.ts, its create and update in webhook.edit.ts, its signing
 * secret in webhook.signing.ts) share: its dependencies and the helpers below.
 */
export interface WebhookParts extends WebhookServiceDeps {
  /** `newSecret` of the dependencies, or a generated `whsec_` key. */
  newSecret: () => string;
  callbacks: CallbackSecretsService;
  /** The OpenAPI document's Webhook object, the secret opened (webhook.present.ts). */
  present: (r: WebhookRecord) => Webhook;
  /** The caller's webhook; NotFoundError otherwise. */
  found: (owner: Owner, id: string) => Promise<WebhookRecord>;
}
