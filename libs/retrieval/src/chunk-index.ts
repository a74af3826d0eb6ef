import MiniSearch from 'minisearch';

/** A stored chunk of a rag id (a crawled page's, or a knowledge base document's), as the index reads it. */
export interface ChunkRecord {
  id: string;
  rag_id: string;
  url: string;
  title: string;
  ordinal: number;
  text: string;
  embedding: number[] | null;
}

/** A chunk found by a query, with its score (BM25, or BM25 blended with the cosine similarity of embeddings). */
export interface ChunkHit {
  chunk: ChunkRecord;
  score: number;
}

/** The BM25 index of one rag id's chunks, with their embeddings when the chunks have them. */
export interface ChunkIndex {
  revision: number;
  size: number;
  /** Chunks stored with an embedding. */
  vectors: number;
  /** BM25 alone; with `queryVector` (and chunks with vectors), BM25 normalised to 0–1 blended with cosine similarity. */
  search(query: string, topK: number, queryVector?: number[] | null): ChunkHit[];
}

/** Share of the normalised BM25 score in a blended score; the rest is the cosine similarity (negative counted 0). */
export const BM25_WEIGHT = 0.5;

/** A unit-length copy (float32: half the memory of the stored doubles); null for a zero vector. */
function unit(v: readonly number[]): Float32Array | null {
  let norm = 0;
  for (const x of v) norm += x * x;
  if (norm === 0) return null;
  const k = 1 / Math.sqrt(norm);
  return Float32Array.from(v, (x) => x * k);
}

function dot(a: Float32Array, b: Float32Array): number {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i]! * b[i]!;
  return s;
}

/**
 * English function words: they match nearly every chunk, add nothing to BM25's ranking, and would make a query
 * such as "where is the ..." score every chunk. Left out of the index and of queries.
 */
const STOP_WORDS = new Set(
  (
    'a an and are as at be but by can did do does for from had has have he her his how i if in into is it its me my no not of on or our ' +
    'she so than that the their them then there these they this to up us was we were what when where which who why will with you your'
  ).split(' '),
);

const processTerm = (term: string): string | null => {
  const t = term.toLowerCase();
  return STOP_WORDS.has(t) ? null : t;
};

/** Builds the BM25 index (minisearch: BM25+, title boosted) of a rag id's chunks. */
export function buildChunkIndex(chunks: ChunkRecord[], revision: number): ChunkIndex {
  // Records without their vectors (the vectors live apart, as unit-length float32 arrays).
  const byId = new Map(chunks.map((c) => [c.id, { ...c, embedding: null }]));
  const index = new MiniSearch<ChunkRecord>({
    fields: ['text', 'title'],
    idField: 'id',
    storeFields: [],
    processTerm,
    searchOptions: { boost: { title: 1.5 }, combineWith: 'OR', prefix: (term) => term.length >= 5, fuzzy: false },
  });
  const vectors = new Map<string, Float32Array>();
  for (const c of chunks) {
    const v = c.embedding ? unit(c.embedding) : null;
    if (v) vectors.set(c.id, v);
  }
  index.addAll([...byId.values()]);
  const chunkOf = (id: string) => byId.get(id);
  return {
    revision,
    size: chunks.length,
    vectors: vectors.size,
    search(query, topK, queryVector) {
      const found = index.search(query);
      const q = queryVector && vectors.size > 0 ? unit(queryVector) : null;
      const hits: ChunkHit[] = [];
      if (!q) {
        for (const r of found) {
          const chunk = chunkOf(r.id as string);
          if (chunk) hits.push({ chunk, score: r.score });
          if (hits.length >= topK) break;
        }
        return hits;
      }
      const top = found[0]?.score ?? 0;
      const scores = new Map<string, number>();
      for (const r of found) scores.set(r.id as string, top > 0 ? (BM25_WEIGHT * r.score) / top : 0);
      for (const [id, v] of vectors) {
        if (v.length !== q.length) continue; // another embedding model: BM25 alone for that chunk
        scores.set(id, (scores.get(id) ?? 0) + (1 - BM25_WEIGHT) * Math.max(0, dot(v, q)));
      }
      const ranked = [...scores].filter(([, s]) => s > 0).sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1));
      for (const [id, score] of ranked) {
        const chunk = chunkOf(id);
        if (chunk) hits.push({ chunk, score });
        if (hits.length >= topK) break;
      }
      return hits;
    },
  };
}

export interface IndexCacheDeps {
  /** The rag id's current revision token (cheap read). */
  revision(ragId: string): Promise<number>;
  /** Every chunk of the rag id, embeddings included (kept in the index as float32 unit vectors). */
  chunks(ragId: string): Promise<ChunkRecord[]>;
  /** Rag ids whose index is kept in memory at once (least recently used dropped first). */
  maxGraphs: number;
}

/**
 * Indexes per rag_id, rebuilt from the database when the rag id's revision changed (another replica trained it, or
 * the process restarted) and kept in a bounded LRU. Concurrent first searches of one rag id share one build.
 */
export function createIndexCache(deps: IndexCacheDeps) {
  const cache = new Map<string, Promise<ChunkIndex>>();
  async function build(ragId: string, revision: number): Promise<ChunkIndex> {
    return buildChunkIndex(await deps.chunks(ragId), revision);
  }
  return {
    async get(ragId: string): Promise<ChunkIndex> {
      const revision = await deps.revision(ragId);
      const cached = cache.get(ragId);
      if (cached) {
        const idx = await cached.catch(() => null);
        if (idx && idx.revision === revision) {
          cache.delete(ragId);
          cache.set(ragId, cached);
          return idx;
        }
      }
      const next = build(ragId, revision);
      cache.delete(ragId);
      cache.set(ragId, next);
      next.catch(() => {
        if (cache.get(ragId) === next) cache.delete(ragId);
      });
      while (cache.size > deps.maxGraphs) cache.delete(cache.keys().next().value!);
      return next;
    },
  };
}

export type IndexCache = ReturnType<typeof createIndexCache>;
