import { modelFor, mongoose, type Connection, type Owner, type StoredDoc } from '@platform/db';

import { generateApiKey } from './api-key';

/** Who a key acts for: the owner of whatever the request touches. */
export type Principal = Owner;

export interface ApiKeyRecord extends Principal {
  prefix: string;
  name: string | null;
  created_at: string;
  revoked_at: string | null;
}

const schema = new mongoose.Schema(
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
// The list, newest first (the keys themselves are found by their unique hash or prefix).
schema.index({ created_at: -1 });

/** A stored key, as the schema types it. */
type KeyDoc = StoredDoc<typeof schema>;

function toRecord(d: Omit<KeyDoc, 'key_hash'>): ApiKeyRecord {
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
      const d = await ApiKey.findOne({ key_hash: hash }, { user_id: 1, org_id: 1, revoked_at: 1 }).lean();
      return d && !d.revoked_at ? { user_id: d.user_id, org_id: d.org_id } : null;
    },
    /** Revokes the key with this display prefix; false when none is active. */
    async revoke(prefix: string): Promise<boolean> {
      const d = await ApiKey.findOne({ prefix }, { revoked_at: 1 }).lean();
      if (!d || d.revoked_at) return false;
      // Only if still active: of two revocations at once, one says it revoked the key.
      const r = await ApiKey.updateOne({ _id: d._id, revoked_at: null }, { $set: { revoked_at: new Date() } });
      return r.modifiedCount === 1;
    },
    async list(): Promise<ApiKeyRecord[]> {
      const docs = await ApiKey.find({}, { key_hash: 0 }).sort({ created_at: -1 }).lean();
      return docs.map(toRecord);
    },
    async init(): Promise<void> {
      await ApiKey.init();
    },
  };
}

export type ApiKeyRepository = ReturnType<typeof createApiKeyRepository>;
