import {
  findPage,
  fromJsonText,
  isDuplicateKeyError,
  isObjectIdHex,
  ownerFilter,
  toJsonText,
  type Connection,
  type Page,
} from '@platform/db';

import { ragModel, type RagDoc } from './rag.model';
import type { Owner, RagInput, RagRecord } from './rag.types';

function toRecord(d: RagDoc): RagRecord {
  return {
    id: d._id.toHexString(),
    user_id: d.user_id,
    org_id: d.org_id,
    llm_credential_id: d.llm_credential_id,
    embedding_credential_id: d.embedding_credential_id,
    vector_db_credential_id: d.vector_db_credential_id,
    description: d.description ?? '',
    collection_name: d.collection_name,
    llm_model: d.llm_model,
    embedding_model: d.embedding_model,
    vector_store_provider: d.vector_store_provider,
    semantic_data_model: d.semantic_data_model ?? false,
    meta_data: (fromJsonText(d.meta_data_json, {}) ?? {}) as Record<string, unknown>,
    created_at: d.created_at.toISOString(),
    updated_at: d.updated_at ? d.updated_at.toISOString() : null,
  };
}

const fieldsOf = ({ meta_data, ...rest }: RagInput) => ({ ...rest, meta_data_json: toJsonText(meta_data) });
const scoped = (owner: Owner, id: string) => ({ _id: id, ...ownerFilter(owner) });

/** Thrown when the owner already has a configuration with that collection name. */
export class DuplicateCollectionError extends Error {}

async function unique<T>(write: Promise<T>): Promise<T> {
  try {
    return await write;
  } catch (err) {
    if (isDuplicateKeyError(err)) throw new DuplicateCollectionError('collection_name taken');
    throw err;
  }
}

/** RAG configurations, each scoped to its owner. */
export function createRagRepository(conn: Connection) {
  const Rag = ragModel(conn);
  return {
    async create(owner: Owner, input: RagInput, now: Date): Promise<RagRecord> {
      const doc = await unique(Rag.create({ ...fieldsOf(input), ...ownerFilter(owner), created_at: now }));
      return toRecord(doc.toObject());
    },
    async get(owner: Owner, id: string): Promise<RagRecord | null> {
      if (!isObjectIdHex(id)) return null;
      const d = await Rag.findOne(scoped(owner, id)).lean();
      return d ? toRecord(d) : null;
    },
    list(owner: Owner, page: Page): Promise<{ items: RagRecord[]; total: number }> {
      // The page is read lean, with its `_id`s (findPage types it as the schema, which has none).
      return findPage(Rag, { ...ownerFilter(owner) }, page, (d) => toRecord(d as RagDoc));
    },
    /** Changes the client fields given; null when the owner has no such configuration. */
    async update(owner: Owner, id: string, fields: Partial<RagInput>, now: Date): Promise<RagRecord | null> {
      if (!isObjectIdHex(id)) return null;
      const { meta_data, ...rest } = fields;
      const $set = {
        ...rest,
        ...(meta_data === undefined ? {} : { meta_data_json: toJsonText(meta_data) }),
        updated_at: now,
      };
      const d = await unique(Rag.findOneAndUpdate(scoped(owner, id), { $set }, { returnDocument: 'after' }).lean());
      return d ? toRecord(d) : null;
    },
    async delete(owner: Owner, id: string): Promise<boolean> {
      if (!isObjectIdHex(id)) return false;
      return (await Rag.deleteOne(scoped(owner, id))).deletedCount === 1;
    },
  };
}

export type RagRepository = ReturnType<typeof createRagRepository>;
