import { findPage, isObjectIdHex, listEqualities, ownerFilter, type Connection } from '@platform/db';

import { webhookModel, type WebhookDoc } from './webhook.model';
import type { ListFilter, Owner, WebhookRecord } from './webhook.types';

function toRecord(d: WebhookDoc): WebhookRecord {
  return {
    id: d._id.toHexString(),
    user_id: d.user_id,
    org_id: d.org_id,
    agent_id: d.agent_id,
    description: d.description ?? null,
    secret_key_sealed: d.secret_key_sealed,
    previous_secret_key_sealed: d.previous_secret_key_sealed ?? null,
    previous_secret_expires_at: d.previous_secret_expires_at ?? null,
    is_active: d.is_active ?? true,
    created_at: d.created_at,
    updated_at: d.updated_at ?? null,
    last_triggered_at: d.last_triggered_at ?? null,
    last_trigger_success: d.last_trigger_success ?? null,
    trigger_count: d.trigger_count ?? 0,
    max_concurrency: d.max_concurrency ?? null,
    callback_url: d.callback_url ?? null,
    callback_secret_sealed: d.callback_secret_sealed ?? null,
  };
}

export interface NewWebhook {
  agent_id: string;
  description: string | null;
  secret_key_sealed: string;
  /** Absent: no limit. */
  max_concurrency?: number | null;
  /** Absent: no callback. */
  callback_url?: string | null;
  callback_secret_sealed?: string | null;
}

/**
 * Webhooks in MongoDB, always scoped to their owner (user and org). Ids that are not 24-char lowercase hex match
 * nothing. Updates are conditional `findOneAndUpdate`s (compare-and-set on what they expect).
 */
export function createWebhookRepository(conn: Connection) {
  const Webhook = webhookModel(conn);

  /** Applies `$set` to the owner's webhook when it also matches `extra`; the updated record, or null. */
  async function update(
    owner: Owner,
    id: string,
    extra: Record<string, unknown>,
    set: Partial<WebhookDoc>,
  ): Promise<WebhookRecord | null> {
    if (!isObjectIdHex(id)) return null;
    const d = await Webhook.findOneAndUpdate(
      { _id: id, ...ownerFilter(owner), ...extra },
      { $set: set },
      { returnDocument: 'after' },
    ).lean<WebhookDoc>();
    return d ? toRecord(d) : null;
  }

  return {
    /** True for an id in the webhook id format (24-char lowercase hex). */
    isId: (id: string): boolean => isObjectIdHex(id),

    async create(owner: Owner, fields: NewWebhook, now: Date): Promise<WebhookRecord> {
      const doc = await Webhook.create({ ...fields, ...ownerFilter(owner), created_at: now });
      return toRecord(doc.toObject());
    },

    async get(owner: Owner, id: string): Promise<WebhookRecord | null> {
      if (!isObjectIdHex(id)) return null;
      const d = await Webhook.findOne({ _id: id, ...ownerFilter(owner) }).lean<WebhookDoc>();
      return d ? toRecord(d) : null;
    },

    list: (owner: Owner, f: ListFilter): Promise<{ items: WebhookRecord[]; total: number }> =>
      findPage(Webhook, { ...ownerFilter(owner), ...listEqualities(f) }, f, toRecord),

    /** What the signed trigger needs: the webhook by id alone (the trigger carries no API key). */
    async findForTrigger(id: string): Promise<WebhookRecord | null> {
      if (!isObjectIdHex(id)) return null;
      const d = await Webhook.findById(id).lean<WebhookDoc>();
      return d ? toRecord(d) : null;
    },

    /** `$set` on the owner's webhook when it also matches `extra` (a compare-and-set); the updated record, or null. */
    update: (owner: Owner, id: string, set: Partial<WebhookDoc>, extra: Record<string, unknown> = {}) =>
      update(owner, id, extra, set),

    /** Sets `is_active` only when it differs, so exactly one of concurrent callers changes it; null otherwise. */
    setActiveIfNot: (owner: Owner, id: string, active: boolean, now: Date) =>
      update(owner, id, { is_active: !active }, { is_active: active, updated_at: now }),

    /** Replaces the secret only if it is still `expectedSealed` (compare-and-set); null when it changed meanwhile. */
    rotateSecret: (
      owner: Owner,
      id: string,
      expectedSealed: string,
      nextSealed: string,
      previousExpiresAt: Date,
      now: Date,
    ) =>
      update(
        owner,
        id,
        { secret_key_sealed: expectedSealed },
        {
          secret_key_sealed: nextSealed,
          previous_secret_key_sealed: expectedSealed,
          previous_secret_expires_at: previousExpiresAt,
          updated_at: now,
        },
      ),

    async delete(owner: Owner, id: string): Promise<boolean> {
      if (!isObjectIdHex(id)) return false;
      return (await Webhook.deleteOne({ _id: id, ...ownerFilter(owner) })).deletedCount === 1;
    },

    /** Every webhook with a `max_concurrency` (of any owner), for republishing the limits. */
    async concurrencyLimits(): Promise<{ id: string; max_concurrency: number }[]> {
      const docs = await Webhook.find({ max_concurrency: { $gte: 1 } }, { _id: 1, max_concurrency: 1 }).lean<
        Pick<WebhookDoc, '_id' | 'max_concurrency'>[]
      >();
      return docs.map((d) => ({ id: d._id.toHexString(), max_concurrency: d.max_concurrency! }));
    },

    async init(): Promise<void> {
      await Webhook.init();
    },
  };
}

export type WebhookRepository = ReturnType<typeof createWebhookRepository>;
