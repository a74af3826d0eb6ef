import { isAgentId, type AgentDirectory } from '@platform/agent-client';
import { iso } from '@platform/db';
import { ConflictError, NotFoundError } from '@platform/errors';
import type { AllowEntry } from '@platform/outbound';
import type { LimitPublisher } from '@platform/queue';
import { callbackTargetOf, type CallbackTarget } from '@platform/scheduling';
import type { SecretBox } from '@platform/secrets';

import { pauseBulk } from '../shared/bulk-pause';
import {
  CALLBACK_CHANGE_ATTEMPTS,
  createCallbackSecrets,
  withShownSecret,
  type CallbackChange,
} from '../shared/callback-config';
import type { WebhookRepository } from './webhook.repository';
import { generateSecretKey, openWebhookSecrets, verificationSecrets, type WebhookSecrets } from './webhook.secrets';
import type {
  BulkPauseResult,
  CreateWebhookInput,
  ListFilter,
  Owner,
  UpdateWebhookInput,
  Webhook,
  WebhookList,
  WebhookRecord,
} from './webhook.types';

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

const REGENERATE_ATTEMPTS = 5;

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

  const openSecrets = (r: WebhookRecord): WebhookSecrets => openWebhookSecrets(box, r);

  /** The OpenAPI document's Webhook object (`webhook.schemas.ts`): exactly its fields, the secret opened. */
  function present(r: WebhookRecord): Webhook {
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

  return {
    present,

    /** `apiKey` is the caller's own key, forwarded to the agent service for the ownership check. */
    async create(owner: Owner, apiKey: string, input: CreateWebhookInput): Promise<Webhook> {
      if (!isAgentId(input.agent_id)) throw new NotFoundError('Agent');
      await deps.agents.assertOwnedAgent(apiKey, input.agent_id);
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

    async list(owner: Owner, filter: ListFilter): Promise<WebhookList> {
      const { items, total } = await repo.list(owner, filter);
      return { webhooks: items.map(present), total };
    },

    get: async (owner: Owner, id: string): Promise<Webhook> => present(await found(owner, id)),

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

    /** A new secret; the replaced one keeps verifying for `graceSeconds` (0: not at all). */
    async regenerateSecret(owner: Owner, id: string, graceSeconds: number): Promise<Webhook> {
      for (let i = 0; i < REGENERATE_ATTEMPTS; i++) {
        const current = await found(owner, id);
        const now = clock();
        const expires = new Date(now.getTime() + graceSeconds * 1000);
        const r = await repo.rotateSecret(owner, id, current.secret_key_sealed, box.encrypt(newSecret()), expires, now);
        if (r) return present(r);
      }
      throw new ConflictError('The secret is being regenerated by another request; retry');
    },

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

    /** The secrets a trigger signature may use now (the current one, and the previous one within its grace). */
    async validSecrets(owner: Owner, id: string): Promise<string[]> {
      return verificationSecrets(openSecrets(await found(owner, id)), clock());
    },
  };
}

export type WebhookService = ReturnType<typeof createWebhookService>;
