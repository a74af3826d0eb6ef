import { modelFor, mongoose, type Connection, type StoredDoc } from '@platform/db';

const ragSchema = new mongoose.Schema(
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
    /** Client JSON as text (`toJsonText`): its keys may be ones a document store refuses. */
    meta_data_json: { type: String, default: null },
    created_at: { type: Date, required: true },
    updated_at: { type: Date, default: null },
  },
  { versionKey: false },
);
// An owner's configurations, newest first (the list's order, `findPage`).
ragSchema.index({ user_id: 1, org_id: 1, created_at: -1, _id: -1 });
// One collection name per owner: the 409 of create and update rests on this index, not on a read before the write.
ragSchema.index({ user_id: 1, org_id: 1, collection_name: 1 }, { unique: true });

/** A stored configuration, as the schema types it. */
export type RagDoc = StoredDoc<typeof ragSchema>;

export function ragModel(conn: Connection) {
  return modelFor(conn, 'RagConfig', ragSchema, 'rag_configs');
}
