import type { Owner } from '@platform/db';
import type { Logger } from '@platform/logger';
import { openProviderCall, postProvider, type ProviderCall, type ProviderCallDeps } from '@platform/providers';

/** Texts sent in one /embeddings request. */
export const EMBEDDING_BATCH = 64;
/** Largest vector accepted (longer answers are refused, not stored). */
export const MAX_EMBEDDING_DIMENSIONS = 8192;

const isVector = (v: unknown): v is number[] =>
  Array.isArray(v) &&
  v.length > 0 &&
  v.length <= MAX_EMBEDDING_DIMENSIONS &&
  v.every((x) => typeof x === 'number' && Number.isFinite(x));

/**
 * Vectors of `texts` by the OpenAI protocol's POST /embeddings, in batches of EMBEDDING_BATCH, in the order given.
 * Throws when the provider fails or answers a list that does not fit (count, order, shape, one dimension).
 */
export async function embedTexts(call: ProviderCall, texts: string[]): Promise<number[][]> {
  const out: number[][] = [];
  for (let i = 0; i < texts.length; i += EMBEDDING_BATCH) {
    const input = texts.slice(i, i + EMBEDDING_BATCH);
    const data = (await postProvider(call, '/embeddings', { input })) as {
      data?: { index?: unknown; embedding?: unknown }[];
    };
    const rows = Array.isArray(data.data) ? [...data.data] : [];
    if (rows.length !== input.length) throw new Error(`embeddings: ${rows.length} vectors for ${input.length} texts`);
    rows.sort((a, b) => Number(a.index) - Number(b.index));
    for (const [k, row] of rows.entries()) {
      if (row.index !== undefined && row.index !== k) throw new Error('embeddings: indexes do not match the input');
      if (!isVector(row.embedding)) throw new Error('embeddings: not a vector of numbers');
      if (out.length > 0 && row.embedding.length !== out[0]!.length)
        throw new Error('embeddings: vectors of different dimensions');
      out.push(row.embedding);
    }
  }
  return out;
}

/** Vectors of texts, in their order; throws when the provider fails (see embedTexts). */
export type Embedder = (texts: string[]) => Promise<number[][]>;

export interface EmbeddingsDeps extends ProviderCallDeps {
  logger: Logger;
}

/**
 * Embeddings by an owner's embedding credential (OpenAI protocol), opened through the agent service: the one way
 * the services turn chunks and queries into vectors.
 */
export function createEmbeddings(deps: EmbeddingsDeps) {
  return {
    /** The embedder of a credential and model; null when either is missing or the credential does not open. */
    async embedder(
      owner: Owner,
      credentialId: string | null | undefined,
      model: string | null | undefined,
    ): Promise<Embedder | null> {
      const call = await openProviderCall(deps, owner, credentialId, model);
      return call ? (texts) => embedTexts(call, texts) : null;
    },
    /**
     * The query's vector; null when there is no credential or model, it does not open, or the provider fails (logged
     * with `context`, e.g. the rag id).
     */
    async embedQuery(
      owner: Owner,
      credentialId: string | null | undefined,
      model: string | null | undefined,
      query: string,
      context: Record<string, unknown> = {},
    ): Promise<number[] | null> {
      const call = await openProviderCall(deps, owner, credentialId, model);
      if (!call) return null;
      try {
        return (await embedTexts(call, [query]))[0] ?? null;
      } catch (err) {
        deps.logger.warn('query embedding failed; BM25 only', { ...context, reason: (err as Error).message });
        return null;
      }
    },
  };
}

export type Embeddings = ReturnType<typeof createEmbeddings>;
