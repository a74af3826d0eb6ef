import { postProvider, type ProviderCall } from './openai-protocol';

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
