import { modelFor, mongoose, type Connection, type Model } from '@platform/db';

export interface RagDoc {
  _id: mongoose.Types.ObjectId;
  user_id: string;
  org_id: string;
  llm_credential_id: string;
  embedding_credential_id: string;
  vector_db_credential_id: string;
  description: string;
  collection_name: string;
  llm_model: string;
  embedding_model: string;
  vector_store_provider: string;
  semantic_data_model: boolean;
  /** Client JSON as text (`toJsonText`): its keys may be ones a document store refuses. */
  meta_data_json: string | null;
  created_at: Date;
  updated_at: Date | null;
}

const ragSchema = new mongoose.Schema<RagDoc>(
  {
    user_id: { type: String, required: true },
    org_id: { type: String, required: true },
    llm_credential_id: { type: String, required: true },
    embedding_credential_id: { type: String, required: true },
    vector_db_credential_id: { type: String, required: true },
    description: { type: String, default: '' },
    collection_name: { type: String, required: true },
    llm_model: { type: String, required: true },
    embedding_model: { type: String, required: true },
    vector_store_provider: { type: String, required: true },
    semantic_data_model: { type: Boolean, default: false },
    meta_data_json: { type: String, default: null },
    created_at: { type: Date, required: true },
    updated_at: { type: Date, default: null },
  },
  { versionKey: false },
);
ragSchema.index({ user_id: 1, org_id: 1, created_at: -1 });
// One collection name per owner: the 409 of create and update rests on this index, not on a read before the write.
ragSchema.index({ user_id: 1, org_id: 1, collection_name: 1 }, { unique: true });

export function ragModel(conn: Connection): Model<RagDoc> {
  return modelFor(conn, 'RagConfig', ragSchema, 'rag_configs');
}
