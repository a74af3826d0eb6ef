import { modelFor, mongoose, type Connection, type Owner } from '@platform/db';

import { generateApiKey } from './api-key';

/** Who a key acts for: the owner of whatever the request touches. */
export type Principal = Owner;

export interface ApiKeyRecord extends Principal {
  prefix: string;
  name: string | null;
  created_at: string;
  revoked_at: string | null;
}

interface KeyDoc {
  prefix: string;
  user_id: string;
  org_id: string;
  name?: string | null;
  created_at: Date;
  revoked_at?: Date | null;
}

const schema = new mongoose.Schema<KeyDoc & { key_hash: string }>(
  {
    key_hash: { type: String, required: true, unique: true },
    prefix: { type: String, required: true, unique: true },
    user_id: { type: String, required: true },
    org_id: { type: String, required: true },
    name: { type: String, default: null },
    created_at: { type: Date, required: true },
    revoked_at: { type: Date, default: null },
  },
  { versionKey: false },
);

function toRecord(d: KeyDoc): ApiKeyRecord {
  return {
    prefix: d.prefix,
    user_id: d.user_id,
    org_id: d.org_id,
    name: d.name ?? null,
    created_at: d.created_at.toISOString(),
    revoked_at: d.revoked_at ? d.revoked_at.toISOString() : null,
  };
}

/** API keys in the shared auth database. Stores hashes and display prefixes only. */
export function createApiKeyRepository(conn: Connection) {
  const ApiKey = modelFor(conn, 'ApiKey', schema, 'api_keys');
  return {
    /** Mints a key; the plaintext is returned once and never stored. */
    async create(owner: Principal, name?: string): Promise<{ key: string; record: ApiKeyRecord }> {
      const { key, prefix, hash } = generateApiKey();
      const doc = await ApiKey.create({ key_hash: hash, prefix, ...owner, name: name ?? null, created_at: new Date() });
      return { key, record: toRecord(doc.toObject()) };
    },
    /** The owner of an unrevoked key with this hash, or null. */
    async findActiveByHash(hash: string): Promise<Principal | null> {
      const d = await ApiKey.findOne({ key_hash: hash, revoked_at: null }, { user_id: 1, org_id: 1 }).lean<KeyDoc>();
      return d ? { user_id: d.user_id, org_id: d.org_id } : null;
    },
    /** Revokes the key with this display prefix; false when none is active. */
    async revoke(prefix: string): Promise<boolean> {
      const r = await ApiKey.updateOne({ prefix, revoked_at: null }, { $set: { revoked_at: new Date() } });
      return r.modifiedCount === 1;
    },
    async list(): Promise<ApiKeyRecord[]> {
      const docs = await ApiKey.find({}, { key_hash: 0 }).sort({ created_at: -1 }).lean<KeyDoc[]>();
      return docs.map(toRecord);
    },
    async init(): Promise<void> {
      await ApiKey.init();
    },
  };
}

export type ApiKeyRepository = ReturnType<typeof createApiKeyRepository>;
