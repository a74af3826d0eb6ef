import { ValidationError } from '@platform/errors';

/** A vector of a chunk: its id (unique in the rag id), the document it belongs to, and the embedding. */
export interface VectorRow {
  id: string;
  document_id: string;
  vector: number[];
}

/** A row found by a search: its cosine similarity to the query (higher = closer, at most 1). */
export interface VectorHit {
  id: string;
  document_id: string;
  score: number;
}

/** Where the vectors of each rag id live: one adapter per `vector_store_provider` name. */
export interface VectorStore {
  /** The adapter's canonical name (e.g. "lancedb"). */
  readonly provider: string;
  /** Adds rows, replacing the rows with the same id; the first upsert of a rag id fixes its vector dimension. */
  upsert(ragId: string, rows: VectorRow[]): Promise<void>;
  /** The `k` rows closest to `vector` (cosine), closest first; [] for an unknown rag id or another dimension. */
  search(ragId: string, vector: number[], k: number): Promise<VectorHit[]>;
  /** Removes every row of these documents; the number of rows removed. */
  deleteDocuments(ragId: string, documentIds: string[]): Promise<number>;
  /** Removes the rows with these ids; the number of rows removed. */
  deleteIds(ragId: string, ids: string[]): Promise<number>;
  /** Removes every vector of the rag id (its dimension is free again). */
  reset(ragId: string): Promise<void>;
  count(ragId: string): Promise<number>;
  close(): Promise<void>;
}

/** Largest `k` of one search (a larger one is clamped). */
export const MAX_VECTOR_SEARCH_K = 1000;
/** Longest row id or document id accepted. */
export const MAX_VECTOR_ID_LENGTH = 128;
/** The characters of row and document ids (hex ids, hashes, slugs): nothing that could end a filter's quotes. */
const SAFE_ID = /^[A-Za-z0-9_.:-]+$/;
/** A rag id: a 24-hex ObjectId. */
const RAG_ID = /^[0-9a-f]{24}$/i;

/**
 * A vector whose dimension is not the rag id's (422). The first vectors stored for a rag id fix its dimension; after
 * a change of embedding model its vectors are reset before new ones are stored.
 */
export class VectorDimensionError extends ValidationError {
  constructor(
    readonly expected: number,
    readonly received: number,
  ) {
    super([
      {
        loc: ['body', 'vector'],
        msg: `embedding has ${received} dimensions; this knowledge base stores vectors of ${expected} dimensions`,
        type: 'value_error.vector_dimension',
      },
    ]);
  }
}

/** A rag id that is not a 24-hex id, a row or document id with characters outside [A-Za-z0-9_.:-], or a bad vector. */
export class VectorInputError extends ValidationError {
  constructor(field: string, msg: string) {
    super([{ loc: ['body', field], msg, type: 'value_error' }]);
  }
}

/** The rag id, checked (24 hex digits) and lower-cased: the one form table names are derived from. */
export function checkRagId(ragId: string): string {
  if (typeof ragId !== 'string' || !RAG_ID.test(ragId))
    throw new VectorInputError('rag_id', 'rag_id is not a 24-hex id');
  return ragId.toLowerCase();
}

/** A row or document id, checked so it can be quoted into a filter expression. */
export function checkVectorId(id: string, field = 'id'): string {
  if (typeof id !== 'string' || id.length === 0 || id.length > MAX_VECTOR_ID_LENGTH || !SAFE_ID.test(id))
    throw new VectorInputError(field, `${field} must be 1-${MAX_VECTOR_ID_LENGTH} characters of [A-Za-z0-9_.:-]`);
  return id;
}

/** A vector, checked: finite numbers, at least one. */
export function checkVector(vector: number[], field = 'vector'): number[] {
  if (
    !Array.isArray(vector) ||
    vector.length === 0 ||
    !vector.every((x) => typeof x === 'number' && Number.isFinite(x))
  )
    throw new VectorInputError(field, `${field} must be a non-empty array of finite numbers`);
  return vector;
}
