/**
 * Word vectors for the checks' models: a compact table of the most frequent English words' GloVe vectors
 * (`models/word-vectors.json`, written by `scripts/build-word-vectors.ts` from an npm package; its `source` names
 * it), and the pooled features of a text built from them: the mean and the per-dimension maximum of its known words'
 * vectors, and the share of its words that are known. Words unlike any seen in training ("disregard", "prior",
 * "directives") then land near the ones that were ("ignore", "previous", "instructions").
 *
 * Stored: unit-length vectors in 8 bits, one float scale per word (q · scale), base64; decoded once, at first use.
 */

/** The committed table, as JSON. */
export interface WordVectorsFile {
  source: string;
  count: number;
  dims: number;
  /** The words, one a line, most frequent first. */
  words: string;
  /** base64 of a Float32Array(count): each word's scale. */
  scales: string;
  /** base64 of an Int8Array(count × dims): each word's quantised unit vector. */
  vectors: string;
}

/** A decoded table: each word's row in `table` (dims floats, unit length up to rounding). */
export interface WordVectors {
  dims: number;
  index: Map<string, number>;
  table: Float32Array;
}

export function encodeWordVectors(words: string[], vectors: number[][], meta: { source: string }): WordVectorsFile {
  const dims = vectors[0]?.length ?? 0;
  const scales = new Float32Array(words.length);
  const q = new Int8Array(words.length * dims);
  vectors.forEach((v, i) => {
    const norm = Math.hypot(...v) || 1;
    const max = Math.max(...v.map((x) => Math.abs(x / norm))) || 1;
    scales[i] = max / 127;
    v.forEach((x, d) => (q[i * dims + d] = Math.round(((x / norm) * 127) / max)));
  });
  return {
    source: meta.source,
    count: words.length,
    dims,
    words: words.join('\n'),
    scales: Buffer.from(scales.buffer).toString('base64'),
    vectors: Buffer.from(q.buffer).toString('base64'),
  };
}

export function decodeWordVectors(file: WordVectorsFile): WordVectors {
  const words = file.words.split('\n');
  if (words.length !== file.count) throw new Error(`word vectors: ${words.length} words, ${file.count} declared`);
  const scaleBytes = Buffer.from(file.scales, 'base64');
  const qBytes = Buffer.from(file.vectors, 'base64');
  if (scaleBytes.length !== file.count * 4 || qBytes.length !== file.count * file.dims)
    throw new Error('word vectors: the tables do not match the declared size');
  const scales = new Float32Array(
    scaleBytes.buffer.slice(scaleBytes.byteOffset, scaleBytes.byteOffset + scaleBytes.length),
  );
  const q = new Int8Array(qBytes.buffer, qBytes.byteOffset, qBytes.length);
  const table = new Float32Array(file.count * file.dims);
  for (let i = 0; i < file.count; i++)
    for (let d = 0; d < file.dims; d++) table[i * file.dims + d] = q[i * file.dims + d]! * scales[i]!;
  return { dims: file.dims, index: new Map(words.map((w, i) => [w, i])), table };
}

const WORD = /\p{L}+/gu;
const MARKS = /\p{M}/gu;

/** The row of a word: as it is in lower case, else without its accents; -1 when the table does not hold it. */
export function rowOf(vectors: WordVectors, word: string): number {
  const lower = word.toLowerCase();
  const row = vectors.index.get(lower);
  if (row !== undefined) return row;
  return vectors.index.get(lower.normalize('NFKD').replace(MARKS, '')) ?? -1;
}

/**
 * The pooled features of a text: [mean (dims), max (dims), share of known words], `2 · dims + 1` values. A text with
 * no known word gives zeros.
 */
export function pooledFeatures(vectors: WordVectors, text: string): Float32Array {
  const { dims, table } = vectors;
  const out = new Float32Array(2 * dims + 1);
  const max = out.subarray(dims, 2 * dims).fill(-Infinity);
  let words = 0;
  let known = 0;
  for (const m of text.matchAll(WORD)) {
    words++;
    const row = rowOf(vectors, m[0]);
    if (row < 0) continue;
    known++;
    const base = row * dims;
    for (let d = 0; d < dims; d++) {
      const x = table[base + d]!;
      out[d]! += x;
      if (x > max[d]!) max[d] = x;
    }
  }
  if (known === 0) {
    out.fill(0);
    return out;
  }
  for (let d = 0; d < dims; d++) out[d]! /= known;
  out[2 * dims] = known / words;
  return out;
}
