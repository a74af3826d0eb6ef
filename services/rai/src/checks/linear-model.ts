/**
 * A linear text classifier shipped with the service: logistic regression over hashed word and character n-grams
 * (the "bag of n-grams" baseline that is hard to beat on short texts). The weights are trained offline by
 * `scripts/train-linear.ts` on public data and committed as JSON; scoring a 2 KB text costs well under a millisecond.
 */
import { plainFold } from './fold';

/** A trained model as committed: only the non-zero weights, by feature index. */
export interface LinearModel {
  name: string;
  /** Number of hash buckets (a power of two). */
  dims: number;
  bias: number;
  idx: number[];
  w: number[];
  /** What it was trained on (datasets and counts), for the reader. */
  trained_on?: string;
}

const WORD = /[\p{L}\p{N}']+/gu;
const FNV_OFFSET = 2166136261;
const FNV_PRIME = 16777619;
/** Feature kinds are hashed apart so a word and a character n-gram of the same letters don't collide on purpose. */
const WORD_SEED = 0x9e3779b1;
const BIGRAM_SEED = 0x85ebca6b;
const CHAR_MIN = 3;
const CHAR_MAX = 5;

function hashString(s: string, seed: number): number {
  let h = (FNV_OFFSET ^ seed) >>> 0;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), FNV_PRIME);
  return h >>> 0;
}

/** The text as the model sees it: folded (case, accents, look-alike digits) and whitespace collapsed. */
export const modelText = (text: string): string => plainFold(text).replace(/\s+/g, ' ').trim();

/**
 * The distinct hashed features of a text: word unigrams and bigrams, and character 3- to 5-grams of the folded
 * text (spaces included, so word boundaries count). Returned as bucket indices (mask = dims − 1).
 */
export function features(text: string, dims: number): Uint32Array {
  const mask = dims - 1;
  const t = modelText(text);
  const out = new Set<number>();
  const words = t.match(WORD) ?? [];
  for (let i = 0; i < words.length; i++) {
    out.add(hashString(words[i]!, WORD_SEED) & mask);
    if (i > 0) out.add(hashString(`${words[i - 1]!} ${words[i]!}`, BIGRAM_SEED) & mask);
  }
  const padded = ` ${t} `;
  for (let i = 0; i < padded.length; i++) {
    let h = FNV_OFFSET;
    for (let n = 1; n <= CHAR_MAX && i + n <= padded.length; n++) {
      h = Math.imul(h ^ padded.charCodeAt(i + n - 1), FNV_PRIME);
      if (n >= CHAR_MIN) out.add((h >>> 0) & mask);
    }
  }
  return Uint32Array.from(out);
}

/** A model ready to score: weights expanded into a dense table once, at load. */
export interface LoadedModel {
  name: string;
  dims: number;
  bias: number;
  table: Float32Array;
}

export function loadModel(m: LinearModel): LoadedModel {
  if (m.dims <= 0 || (m.dims & (m.dims - 1)) !== 0) throw new Error(`model ${m.name}: dims must be a power of two`);
  if (m.idx.length !== m.w.length) throw new Error(`model ${m.name}: idx and w differ in length`);
  const table = new Float32Array(m.dims);
  for (let i = 0; i < m.idx.length; i++) table[m.idx[i]!] = m.w[i]!;
  return { name: m.name, dims: m.dims, bias: m.bias, table };
}

const sigmoid = (z: number) => 1 / (1 + Math.exp(-z));

/** The margin w·x + b of one text, with x the binary feature vector scaled to unit length. */
export function margin(model: LoadedModel, feats: Uint32Array): number {
  if (feats.length === 0) return model.bias;
  let s = 0;
  for (const f of feats) s += model.table[f]!;
  return model.bias + s / Math.sqrt(feats.length);
}

/** The probability that the whole text is of the positive class. */
export const probability = (model: LoadedModel, text: string): number =>
  sigmoid(margin(model, features(text, model.dims)));

const WINDOW = 600;
const STRIDE = 300;

/**
 * The highest probability over the whole text and over windows of it (600 characters, every 300), so that a short
 * attack inside a long harmless text is not diluted by it.
 */
export function windowedProbability(model: LoadedModel, text: string): number {
  let best = probability(model, text);
  if (text.length <= WINDOW) return best;
  for (let start = 0; start < text.length; start += STRIDE) {
    best = Math.max(best, probability(model, text.slice(start, start + WINDOW)));
    if (start + WINDOW >= text.length) break;
  }
  return best;
}
