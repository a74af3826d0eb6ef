import { modelFor, mongoose, type Connection, type Model } from '@platform/db';

export interface CredentialDoc {
  _id: mongoose.Types.ObjectId;
  user_id: string;
  org_id: string;
  name: string;
  provider_id: string;
  /** `llm` unless the client said otherwise; absent on documents written before types existed (read as `llm`). */
  type?: string | null;
  /** AES-256-GCM sealed api key; the plaintext is never stored. */
  api_key_sealed: string;
  base_url: string | null;
  /** The client's meta_data as JSON text (toJsonText). */
  meta_data_json?: string | null;
  created_at: Date;
  updated_at: Date | null;
}

const credentialSchema = new mongoose.Schema<CredentialDoc>(
  {
    user_id: { type: String, required: true },
    org_id: { type: String, required: true },
    name: { type: String, required: true },
    provider_id: { type: String, required: true },
    type: { type: String, default: 'llm' },
    api_key_sealed: { type: String, required: true },
    base_url: { type: String, default: null },
    meta_data_json: { type: String, default: null },
    created_at: { type: Date, required: true },
    updated_at: { type: Date, default: null },
  },
  { versionKey: false },
);
credentialSchema.index({ user_id: 1, org_id: 1, created_at: -1 });
credentialSchema.index({ user_id: 1, org_id: 1, type: 1, created_at: -1 });

export function credentialModel(conn: Connection): Model<CredentialDoc> {
  return modelFor(conn, 'Credential', credentialSchema, 'credentials');
}
