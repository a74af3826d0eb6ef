/**
 * Made-up words drawn with Zipf's law (s = 1), as natural text draws its words: what the retrieval benchmarks
 * index, so that BM25 meets the frequencies it meets in real text.
 */
export interface ZipfVocabulary {
  /** The words, the most frequent first. */
  words: string[];
  /** A word drawn with Zipf's law from `rand` (uniform in [0, 1)). */
  draw(rand: () => number): string;
}

/** `size` words spelled from `syllables` (a word's rank in base syllables.length), short ones padded with `pad`. */
export function zipfVocabulary(size: number, syllables: string[], pad: string): ZipfVocabulary {
  const words = Array.from({ length: size }, (_, i) => {
    let w = '';
    for (let n = i + 1; n > 0; n = Math.floor(n / syllables.length)) w += syllables[n % syllables.length];
    return w.length < 4 ? `${w}${pad}` : w;
  });
  let sum = 0;
  const cumulative = words.map((_, r) => (sum += 1 / (r + 1)));
  return {
    words,
    draw(rand) {
      const x = rand() * cumulative[cumulative.length - 1]!;
      let lo = 0;
      let hi = cumulative.length - 1;
      while (lo < hi) {
        const mid = (lo + hi) >> 1;
        if (cumulative[mid]! < x) lo = mid + 1;
        else hi = mid;
      }
      return words[lo]!;
    },
  };
}
