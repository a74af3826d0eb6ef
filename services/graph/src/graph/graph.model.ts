import { createHash } from 'node:crypto';

import { modelFor, mongoose, type Connection, type StoredDoc } from '@platform/db';

/**
 * The relations a chunk states, as its page counts them (weight summed over the page's chunks), with the names of
 * their entities: a search reads them with the hit's text, in the one read of the hit's chunk (a page's facts
 * document is tens of kilobytes, a chunk's share of it a few hundred bytes).
 */
export interface ChunkFacts {
  relations: { source: string; target: string; type: string; weight: number }[];
  names: { key: string; name: string }[];
}

/** An entity as one page mentions it. */
export interface PageEntity {
  key: string;
  name: string;
  type: string;
  weight: number;
  chunk_ids: string[];
}

/** A relation as one page states it. */
export interface PageRelation {
  source: string;
  target: string;
  type: string;
  weight: number;
  chunk_ids: string[];
}

/** The `_id` of a page's facts document. */
export const factsId = (ragId: string, url: string) =>
  createHash('sha256').update(`${ragId}\u0000${url}`).digest('hex').slice(0, 32);

/** A page trained into a graph; one per (rag_id, url). */
const pageSchema = new mongoose.Schema(
  {
    rag_id: { type: String, required: true },
    user_id: { type: String, required: true },
    org_id: { type: String, required: true },
    url: { type: String, required: true },
    title: { type: String, default: '' },
    chunk_count: { type: Number, required: true },
    trained_at: { type: Date, required: true },
    /** The rag service's knowledge-base documents whose trainings reached this page (absent: trained directly). */
    source_ids: { type: [String], default: undefined },
  },
  { versionKey: false },
);
// One page per URL of a graph; a graph's pages in URL order; the pages a knowledge-base document reached.
pageSchema.index({ rag_id: 1, url: 1 }, { unique: true });
pageSchema.index({ rag_id: 1, source_ids: 1 });

/** A chunk of a page's text, the unit of retrieval. */
const chunkSchema = new mongoose.Schema(
  {
    _id: { type: String, required: true },
    rag_id: { type: String, required: true },
    url: { type: String, required: true },
    title: { type: String, default: '' },
    ordinal: { type: Number, required: true },
    text: { type: String, required: true },
    /** The chunk's embedding when the RAG configuration has an embedding credential. */
    embedding: { type: [Number], default: null },
    /** What the chunk states (a `ChunkFacts`; written and read lean, never cast); absent in chunks trained before. */
    stated: { type: mongoose.Schema.Types.Mixed, default: undefined },
  },
  { versionKey: false },
);
// A graph's chunks, and those of some of its pages.
chunkSchema.index({ rag_id: 1, url: 1 });

/**
 * What one page contributes to a graph's entities and relations, in one document (the graph's entity or relation is
 * the sum over pages; retraining a page replaces its document). `_id` is `factsId(rag_id, url)`, so a search reads
 * the facts of its hits' pages by `_id`.
 */
const pageFactsSchema = new mongoose.Schema(
  {
    _id: { type: String, required: true },
    rag_id: { type: String, required: true },
    url: { type: String, required: true },
    // `PageEntity[]` and `PageRelation[]`, written and read lean (never cast per element): a page has tens of each.
    entities: { type: mongoose.Schema.Types.Mixed, default: [] },
    relations: { type: mongoose.Schema.Types.Mixed, default: [] },
  },
  { versionKey: false },
);
pageFactsSchema.index({ rag_id: 1, url: 1 });

/** Fields of every per-page graph row (entities and relations). */
const pageRowFields = {
  rag_id: { type: String, required: true },
  url: { type: String, required: true },
  type: { type: String, required: true },
  weight: { type: Number, required: true },
  chunk_ids: { type: [String], default: [] },
};

/**
 * Before page facts documents: one row per entity and page and per relation and page. Read and deleted still (a
 * graph trained before keeps its facts until its pages are trained again); never written.
 */
const entitySchema = new mongoose.Schema(
  { ...pageRowFields, key: { type: String, required: true }, name: { type: String, required: true } },
  { versionKey: false },
);
entitySchema.index({ rag_id: 1, url: 1 });
entitySchema.index({ rag_id: 1, key: 1 });

/** A relation row of a graph trained before page facts documents (see `entitySchema`). */
const relationSchema = new mongoose.Schema(
  { ...pageRowFields, source: { type: String, required: true }, target: { type: String, required: true } },
  { versionKey: false },
);
relationSchema.index({ rag_id: 1, url: 1 });

/** Stored pages, chunks, facts and legacy rows, as their schemas type them (the free-form fields named). */
export type PageDoc = StoredDoc<typeof pageSchema>;
export type ChunkDoc = Omit<StoredDoc<typeof chunkSchema, string>, 'stated'> & { stated?: ChunkFacts | null };
export type PageFactsDoc = Omit<StoredDoc<typeof pageFactsSchema, string>, 'entities' | 'relations'> & {
  entities: PageEntity[];
  relations: PageRelation[];
};
export type EntityDoc = StoredDoc<typeof entitySchema>;
export type RelationDoc = StoredDoc<typeof relationSchema>;

/** Where the graph's search index keeps its change log, head and snapshots (libs/retrieval's index log). */
export const GRAPH_INDEX_LOG = {
  heads: 'graph_revisions',
  changes: 'graph_index_changes',
  parts: 'graph_index_parts',
  models: 'Graph',
};

export const graphModels = (conn: Connection) => ({
  Page: modelFor(conn, 'GraphPage', pageSchema, 'graph_pages'),
  Chunk: modelFor(conn, 'GraphChunk', chunkSchema, 'graph_chunks'),
  Entity: modelFor(conn, 'GraphEntity', entitySchema, 'graph_entities'),
  Relation: modelFor(conn, 'GraphRelation', relationSchema, 'graph_relations'),
  Facts: modelFor(conn, 'GraphPageFacts', pageFactsSchema, 'graph_page_facts'),
});
