import { modelFor, mongoose, type Connection, type Model } from '@platform/db';

export interface CredentialDoc {
  _id: mongoose.Types.ObjectId;
  user_id: string;
  org_id: string;
  name: string;
  provider_id: string;
  /** AES-256-GCM sealed api key; the plaintext is never stored. */
  api_key_sealed: string;
  base_url: string | null;
  created_at: Date;
  updated_at: Date | null;
}

const credentialSchema = new mongoose.Schema<CredentialDoc>(
  {
    user_id: { type: String, required: true },
    org_id: { type: String, required: true },
    name: { type: String, required: true },
    provider_id: { type: String, required: true },
    api_key_sealed: { type: String, required: true },
    base_url: { type: String, default: null },
    created_at: { type: Date, required: true },
    updated_at: { type: Date, default: null },
  },
  { versionKey: false },
);
credentialSchema.index({ user_id: 1, org_id: 1, created_at: -1 });

export function credentialModel(conn: Connection): Model<CredentialDoc> {
  return modelFor(conn, 'Credential', credentialSchema, 'credentials');
}
