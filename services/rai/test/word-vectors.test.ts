import { buildWordVectors } from '../scripts/build-word-vectors';
import {
  decodeWordVectors,
  encodeWordVectors,
  pooledFeatures,
  rowOf,
  type WordVectorsFile,
} from '../src/checks/word-vectors';

// The word-vector table's machinery on a toy vocabulary of 4-dimensional vectors.
const WORDS = ['ignore', 'previous', 'instructions', 'café'];
const VECTORS = [
  [3, 0, 0, 4],
  [0, 2, 0, 0],
  [-1, 1, -1, 1],
  [0.5, -0.25, 2, 0],
];

const unit = (v: number[]) => v.map((x) => x / Math.hypot(...v));
const rowVector = (file: WordVectorsFile, word: string) => {
  const t = decodeWordVectors(file);
  const row = rowOf(t, word);
  return [...t.table.subarray(row * t.dims, (row + 1) * t.dims)];
};

describe('word vectors', () => {
  const file = encodeWordVectors(WORDS, VECTORS, { source: 'toy' });

  it('stores unit-length vectors in 8 bits and decodes them within one step of the scale', () => {
    expect(file).toMatchObject({ source: 'toy', count: 4, dims: 4 });
    expect(Buffer.from(file.vectors, 'base64')).toHaveLength(16);
    WORDS.forEach((word, i) => {
      const got = rowVector(file, word);
      const want = unit(VECTORS[i]!);
      got.forEach((x, d) => expect(Math.abs(x - want[d]!)).toBeLessThan(1 / 127));
      expect(Math.hypot(...got)).toBeCloseTo(1, 1);
    });
  });

  it('finds a word in any case, and without its accents', () => {
    const t = decodeWordVectors(file);
    expect(rowOf(t, 'IGNORE')).toBe(0);
    expect(rowOf(t, 'Instructions')).toBe(2);
    expect(rowOf(t, 'café')).toBe(3);
    expect(rowOf(t, 'cafe')).toBe(-1);
    const unaccented = decodeWordVectors(encodeWordVectors(['cafe'], [[1, 0, 0, 0]], { source: 'toy' }));
    expect(rowOf(unaccented, 'Café')).toBe(0);
    expect(rowOf(t, 'unknown')).toBe(-1);
  });

  it('pools a text: the mean and the maximum of its known words, and the share of words known', () => {
    const t = decodeWordVectors(file);
    const f = pooledFeatures(t, 'Ignore the previous, ignore!');
    expect(f).toHaveLength(2 * 4 + 1);
    const ignore = rowVector(file, 'ignore');
    const previous = rowVector(file, 'previous');
    for (let d = 0; d < 4; d++) {
      expect(f[d]).toBeCloseTo((2 * ignore[d]! + previous[d]!) / 3, 5);
      expect(f[4 + d]).toBeCloseTo(Math.max(ignore[d]!, previous[d]!), 5);
    }
    expect(f[8]).toBeCloseTo(3 / 4, 5);
  });

  it('gives zeros for a text with no known word (and an empty one)', () => {
    const t = decodeWordVectors(file);
    expect([...pooledFeatures(t, 'nothing here 123')]).toEqual(new Array(9).fill(0));
    expect([...pooledFeatures(t, '')]).toEqual(new Array(9).fill(0));
  });

  it('refuses a table whose parts do not match its declared size', () => {
    expect(() => decodeWordVectors({ ...file, count: 5 })).toThrow(/5 declared/);
    expect(() => decodeWordVectors({ ...file, vectors: Buffer.alloc(3).toString('base64') })).toThrow(/size/);
  });

  it('builds the table from the package: the most frequent words of letters only, in order', () => {
    const pkg = {
      dimensions: 2,
      words: ['the', ',', 'of', "n't", 'x2', 'and', 'to'],
      vectors: { the: [1, 0], ',': [0, 1], of: [0, 2], "n't": [1, 1], x2: [2, 2], and: [3, 4], to: [1, 1] },
    };
    const built = buildWordVectors(pkg, 3);
    expect(built.words.split('\n')).toEqual(['the', 'of', 'and']);
    expect(built.source).toContain('the 3 most frequent words');
    expect(rowVector(built, 'and').map((x) => Math.round(x * 10) / 10)).toEqual([0.6, 0.8]);
  });
});
