import { isObjectIdHex, type Connection } from '@platform/db';
import { credentialModel, type CredentialDoc } from './credential.model';
import type { CredentialRecord, Owner } from './credential.types';

function toRecord(d: CredentialDoc): CredentialRecord {
  return {
    credential_id: d._id.toHexString(),
    user_id: d.user_id,
    org_id: d.org_id,
    name: d.name,
    provider_id: d.provider_id,
    api_key_sealed: d.api_key_sealed,
    base_url: d.base_url ?? null,
    created_at: d.created_at.toISOString(),
    updated_at: d.updated_at ? d.updated_at.toISOString() : null,
  };
}

const scoped = (owner: Owner, id: string) => ({ _id: id, user_id: owner.user_id, org_id: owner.org_id });

/** Provider credentials; secrets arrive and leave sealed. */
export function createCredentialRepository(conn: Connection) {
  const Credential = credentialModel(conn);
  return {
    async create(
      owner: Owner,
      fields: { name: string; provider_id: string; api_key_sealed: string; base_url: string | null },
      now: Date,
    ): Promise<CredentialRecord> {
      const doc = await Credential.create({ ...fields, ...owner, created_at: now });
      return toRecord(doc.toObject());
    },
    async get(owner: Owner, id: string): Promise<CredentialRecord | null> {
      if (!isObjectIdHex(id)) return null;
      const d = await Credential.findOne(scoped(owner, id)).lean<CredentialDoc>();
      return d ? toRecord(d) : null;
    },
    async list(owner: Owner, skip: number, limit: number): Promise<{ items: CredentialRecord[]; total: number }> {
      const filter = { user_id: owner.user_id, org_id: owner.org_id };
      const [docs, total] = await Promise.all([
        Credential.find(filter).sort({ created_at: -1, _id: -1 }).skip(skip).limit(limit).lean<CredentialDoc[]>(),
        Credential.countDocuments(filter),
      ]);
      return { items: docs.map(toRecord), total };
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
