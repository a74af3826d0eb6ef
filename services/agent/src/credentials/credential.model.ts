import { modelFor, mongoose, type Connection, type StoredDoc } from '@platform/db';

const credentialSchema = new mongoose.Schema(
  {
    user_id: { type: String, required: true },
    org_id: { type: String, required: true },
    name: { type: String, required: true },
    provider_id: { type: String, required: true },
    /** `llm` unless the client said otherwise; absent on documents written before types existed (read as `llm`). */
    type: { type: String, default: 'llm' },
    /**
     * AES-256-GCM sealed api key; the plaintext is never stored. Null on a credential made of provider-specific keys
     * only (an AWS credential).
     */
    api_key_sealed: { type: String, default: null },
    base_url: { type: String, default: null },
    /** The client's meta_data as JSON text (toJsonText). */
    meta_data_json: { type: String, default: null },
    /**
     * Provider-specific keys of `credentials` by name (letters, digits, `_`, `-`: no `$` or `.`, so that an update
     * sets or removes one key in place): the clear ones and nulls as sent, the others AES-256-GCM sealed. Absent on
     * credentials that have none.
     */
    extra: { type: mongoose.Schema.Types.Mixed },
    extra_sealed: { type: mongoose.Schema.Types.Mixed },
    created_at: { type: Date, required: true },
    updated_at: { type: Date, default: null },
  },
  { versionKey: false },
);
// The owner's list, and the owner's of one type (then the provider, compared case-insensitively among those), newest
// first then by id.
credentialSchema.index({ user_id: 1, org_id: 1, created_at: -1, _id: -1 });
credentialSchema.index({ user_id: 1, org_id: 1, type: 1, created_at: -1, _id: -1 });

/** A stored credential, as the schema types it. */
export type CredentialDoc = StoredDoc<typeof credentialSchema>;

export function credentialModel(conn: Connection) {
  return modelFor(conn, 'Credential', credentialSchema, 'credentials');
}
