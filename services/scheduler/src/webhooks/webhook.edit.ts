import { isAgentId } from '@platform/agent-client';
import { ConflictError, NotFoundError } from '@platform/errors';

import { CALLBACK_CHANGE_ATTEMPTS, withShownSecret, type CallbackChange } from '../shared/callback-config';
import type { WebhookParts } from './webhook.deps';
import type { CreateWebhookInput, Owner, UpdateWebhookInput, Webhook, WebhookRecord } from './webhook.types';

/** A webhook's create and update, and its callback: the agent check, a new signing secret, concurrency published. */
export function createWebhookEdits(parts: WebhookParts) {
  const { repo, box, clock, limits, callbacks, present, found, newSecret } = parts;

  /**
   * Applies a callback change made from the webhook as read (with `other` fields, if any), compare-and-set, reading
   * again when another request changed the callback meanwhile; the webhook with the secret it generated.
   */
  async function changeCallback(
    owner: Owner,
    id: string,
    change: (current: WebhookRecord) => CallbackChange,
    other: Partial<WebhookRecord> = {},
  ): Promise<{ r: WebhookRecord; shown?: string }> {
    for (let i = 0; i < CALLBACK_CHANGE_ATTEMPTS; i++) {
      const c = change(await found(owner, id));
      const r = await repo.update(owner, id, { ...other, ...c.set, updated_at: clock() }, c.expect);
      if (r) return { r, shown: c.shown };
    }
    throw new ConflictError("The webhook's callback is being changed by another request; retry");
  }

  return {
    /** `apiKey` is the caller's own key, forwarded to the agent service for the ownership check. */
    async create(owner: Owner, apiKey: string, input: CreateWebhookInput): Promise<Webhook> {
      if (!isAgentId(input.agent_id)) throw new NotFoundError('Agent');
      await parts.agents.assertOwnedAgent(apiKey, input.agent_id);
      const sealed = box.encrypt(newSecret());
      const callback = callbacks.onCreate(input.callback_url);
      const r = await repo.create(
        owner,
        {
          agent_id: input.agent_id,
          description: input.description ?? null,
          secret_key_sealed: sealed,
          max_concurrency: input.max_concurrency ?? null,
          ...callback.fields,
        },
        clock(),
      );
      if (r.max_concurrency !== null) await limits?.publish(r.id, r.max_concurrency);
      return withShownSecret(present(r), callback.shown);
    },

    async update(owner: Owner, id: string, input: UpdateWebhookInput): Promise<Webhook> {
      const set = {
        ...(input.description !== undefined ? { description: input.description } : {}),
        ...(input.max_concurrency !== undefined ? { max_concurrency: input.max_concurrency } : {}),
      };
      let r: WebhookRecord | null;
      let shown: string | undefined;
      if (input.callback_url !== undefined) {
        ({ r, shown } = await changeCallback(owner, id, (c) => callbacks.onPatch(c, input.callback_url)!, set));
      } else {
        if (Object.keys(set).length === 0) return present(await found(owner, id));
        r = await repo.update(owner, id, { ...set, updated_at: clock() });
        if (!r) throw new NotFoundError('Webhook');
      }
      if (input.max_concurrency !== undefined) await limits?.publish(id, r.max_concurrency);
      return withShownSecret(present(r), shown);
    },

    /** A new callback secret, shown in this answer only; 409 when the webhook has no callback_url. */
    async regenerateCallbackSecret(owner: Owner, id: string): Promise<Webhook> {
      const { r, shown } = await changeCallback(owner, id, (c) => callbacks.rotate(c, 'Webhook'));
      return withShownSecret(present(r), shown);
    },
  };
}
