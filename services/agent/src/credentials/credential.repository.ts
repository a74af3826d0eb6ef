import { findPage, fromJsonText, isObjectIdHex, ownerFilter, toJsonText, type Connection } from '@platform/db';

import { credentialModel, type CredentialDoc } from './credential.model';
import {
  DEFAULT_CREDENTIAL_TYPE,
  type CredentialChanges,
  type CredentialExtras,
  type CredentialFilter,
  type CredentialRecord,
  type MetaData,
  type Owner,
} from './credential.types';

function toRecord(d: CredentialDoc): CredentialRecord {
  return {
    credential_id: d._id.toHexString(),
    user_id: d.user_id,
    org_id: d.org_id,
    name: d.name,
    provider_id: d.provider_id,
    type: d.type ?? DEFAULT_CREDENTIAL_TYPE,
    api_key_sealed: d.api_key_sealed ?? null,
    base_url: d.base_url ?? null,
    meta_data: (fromJsonText(d.meta_data_json, {}) ?? {}) as MetaData,
    extra: (d.extra ?? {}) as CredentialExtras['extra'],
    extra_sealed: (d.extra_sealed ?? {}) as CredentialExtras['extra_sealed'],
    created_at: d.created_at.toISOString(),
    updated_at: d.updated_at ? d.updated_at.toISOString() : null,
  };
}

/** The stored form of changed fields: meta_data as JSON text. */
function toStored(changes: Omit<CredentialChanges, keyof CredentialExtras>): Record<string, unknown> {
  const { meta_data, ...plain } = changes;
  return meta_data === undefined ? plain : { ...plain, meta_data_json: toJsonText(meta_data) };
}

/** The update of provider-specific keys: each key changed is set in its map and removed from the other one. */
function extrasUpdate({ extra = {}, extra_sealed = {} }: Partial<CredentialExtras>) {
  const $set: Record<string, unknown> = {};
  const $unset: Record<string, ''> = {};
  for (const [k, v] of Object.entries(extra)) [$set[`extra.${k}`], $unset[`extra_sealed.${k}`]] = [v, ''];
  for (const [k, v] of Object.entries(extra_sealed)) [$set[`extra_sealed.${k}`], $unset[`extra.${k}`]] = [v, ''];
  return { $set, $unset };
}

const escapeRegex = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * Owner equalities first (served by the indexes), then the type (documents without one are `llm`), then the
 * provider, compared case-insensitively as the API documents.
 */
function listFilter(owner: Owner, filter: CredentialFilter): Record<string, unknown> {
  const out: Record<string, unknown> = { ...ownerFilter(owner) };
  if (filter.type !== undefined)
    out.type = filter.type === DEFAULT_CREDENTIAL_TYPE ? { $in: [filter.type, null] } : filter.type;
  if (filter.provider_id !== undefined)
    out.provider_id = { $regex: `^${escapeRegex(filter.provider_id)}$`, $options: 'i' };
  return out;
}

const scoped = (owner: Owner, id: string) => ({ _id: id, ...ownerFilter(owner) });

/** Provider credentials; secrets arrive and leave sealed. */
export function createCredentialRepository(conn: Connection) {
  const Credential = credentialModel(conn);
  return {
    async create(
      owner: Owner,
      fields: {
        name: string;
        provider_id: string;
        type: string;
        api_key_sealed: string | null;
        base_url: string | null;
        meta_data: MetaData;
      } & Partial<CredentialExtras>,
      now: Date,
    ): Promise<CredentialRecord> {
      const { extra, extra_sealed, ...plain } = fields;
      const extras = {
        ...(extra && Object.keys(extra).length > 0 ? { extra } : {}),
        ...(extra_sealed && Object.keys(extra_sealed).length > 0 ? { extra_sealed } : {}),
      };
      const doc = await Credential.create({ ...toStored(plain), ...extras, ...owner, created_at: now });
      return toRecord(doc.toObject());
    },
    async get(owner: Owner, id: string): Promise<CredentialRecord | null> {
      if (!isObjectIdHex(id)) return null;
      const d = await Credential.findOne(scoped(owner, id)).lean();
      return d ? toRecord(d) : null;
    },
    list: (
      owner: Owner,
      filter: CredentialFilter,
      skip: number,
      limit: number,
    ): Promise<{ items: CredentialRecord[]; total: number }> =>
      findPage(Credential, listFilter(owner, filter), { skip, limit }, (d) => toRecord(d as CredentialDoc)),
    /** Sets the given fields (one atomic update); null when the owner has no such credential. */
    async update(owner: Owner, id: string, changes: CredentialChanges, now: Date): Promise<CredentialRecord | null> {
      if (!isObjectIdHex(id)) return null;
      const { extra, extra_sealed, ...plain } = changes;
      const keys = extrasUpdate({ extra, extra_sealed });
      const unset = Object.keys(keys.$unset).length > 0 ? { $unset: keys.$unset } : {};
      const d = await Credential.findOneAndUpdate(
        scoped(owner, id),
        { $set: { ...toStored(plain), ...keys.$set, updated_at: now }, ...unset },
        { returnDocument: 'after' },
      ).lean();
      return d ? toRecord(d) : null;
    },
    async delete(owner: Owner, id: string): Promise<boolean> {
      if (!isObjectIdHex(id)) return false;
      return (await Credential.deleteOne(scoped(owner, id))).deletedCount === 1;
    },
    async init(): Promise<void> {
      await Credential.init();
    },
  };
}

export type CredentialRepository = ReturnType<typeof createCredentialRepository>;
