import type { Owner } from '@platform/db';
import { NotFoundError } from '@platform/errors';
import { callbackTargetOf, type CallbackTarget } from '@platform/scheduling';

import { pauseBulk } from '../shared/bulk-pause';
import { createCallbackSecrets } from '../shared/callback-config';
import type { WebhookParts, WebhookServiceDeps } from './webhook.deps';
import { createWebhookEdits } from './webhook.edit';
import { presentWebhook } from './webhook.present';
import { generateSecretKey } from './webhook.secrets';
import { createWebhookSigning } from './webhook.signing';
import type { BulkPauseResult, ListFilter, Webhook, WebhookList, WebhookRecord } from './webhook.types';

export type { WebhookServiceDeps } from './webhook.deps';

/** Webhook rules: ownership, the agent check, sealed secrets and their rotation, pause and resume. */
export function createWebhookService(deps: WebhookServiceDeps) {
  const { repo, box, clock, limits } = deps;
  const newSecret = deps.newSecret ?? generateSecretKey;
  const base = deps.publicBaseUrl.replace(/\/+$/, '');
  const callbacks = createCallbackSecrets({
    box: deps.callbackBox,
    newSecret: deps.newCallbackSecret,
    allow: deps.allow,
  });

  /** The OpenAPI document's Webhook object (`webhook.schemas.ts`): exactly its fields, the secret opened. */
  const present = (r: WebhookRecord): Webhook => presentWebhook(r, base, box);

  async function found(owner: Owner, id: string): Promise<WebhookRecord> {
    const r = await repo.get(owner, id);
    if (!r) throw new NotFoundError('Webhook');
    return r;
  }

  /** Pause or resume: only a real change writes (and moves updated_at); repeating it returns the webhook as is. */
  async function setActive(owner: Owner, id: string, active: boolean): Promise<Webhook> {
    const changed = await repo.setActiveIfNot(owner, id, active, clock());
    return present(changed ?? (await found(owner, id)));
  }

  const parts: WebhookParts = { ...deps, newSecret, callbacks, present, found };
  const edits = createWebhookEdits(parts);
  const signing = createWebhookSigning(parts);

  return {
    present,

    // Create, update and the callback secret: webhook.edit.ts.
    ...edits,

    async list(owner: Owner, filter: ListFilter): Promise<WebhookList> {
      const { items, total } = await repo.list(owner, filter);
      return { webhooks: items.map(present), total };
    },

    get: async (owner: Owner, id: string): Promise<Webhook> => present(await found(owner, id)),

    /** What a replay of the webhook's runs needs: whether it runs, and where the new runs' callbacks go. */
    async runTarget(owner: Owner, id: string): Promise<{ is_active: boolean; callback: CallbackTarget | null }> {
      const r = await found(owner, id);
      return { is_active: r.is_active, callback: callbackTargetOf(r) };
    },

    async delete(owner: Owner, id: string): Promise<void> {
      if (!(await repo.delete(owner, id))) throw new NotFoundError('Webhook');
      await limits?.publish(id, null);
    },

    pause: (owner: Owner, id: string) => setActive(owner, id, false),
    resume: (owner: Owner, id: string) => setActive(owner, id, true),

    // The signing secret's rotation and the secrets a trigger may use: webhook.signing.ts.
    ...signing,

    async pauseBulk(owner: Owner, ids: string[]): Promise<BulkPauseResult> {
      const pausable = {
        isId: repo.isId,
        pauseIfActive: (o: Owner, id: string, now: Date) => repo.setActiveIfNot(o, id, false, now),
        exists: async (o: Owner, id: string) => (await repo.get(o, id)) !== null,
      };
      const { paused, ...counts } = await pauseBulk(
        { repo: pausable, clock, present, noun: ['webhook', 'webhooks'] },
        owner,
        ids,
      );
      return { ...counts, paused_webhooks: paused };
    },
  };
}

export type WebhookService = ReturnType<typeof createWebhookService>;
