/**
 * English function words: they match nearly every chunk, add nothing to BM25's ranking, and would make a query
 * such as "where is the ..." score every chunk.
 */
const STOP_WORDS = new Set(
  (
    'a an and are as at be but by can did do does for from had has have he her his how i if in into is it its me my no not of on or our ' +
    'she so than that the their them then there these they this to up us was we were what when where which who why will with you your'
  ).split(' '),
);

const SPLIT = /[\n\r\p{Z}\p{P}]+/u;

/** The raw tokens of a field (minisearch's tokenizer: spaces and punctuation separate). */
const tokensOf = (s: string): string[] => s.split(SPLIT).filter((t) => t.length > 0);
const termOf = (token: string): string | null => {
  const t = token.toLowerCase();
  return STOP_WORDS.has(t) ? null : t;
};

/** The distinct search terms of a query, in order. */
export function queryTerms(query: string): string[] {
  const out: string[] = [];
  for (const tok of tokensOf(query)) {
    const t = termOf(tok);
    if (t && !out.includes(t)) out.push(t);
  }
  return out;
}

/** Term counts of one field, and its length as minisearch counts it (distinct raw tokens). */
export function countTerms(text: string): { counts: Map<string, number>; length: number } {
  const tokens = tokensOf(text);
  const counts = new Map<string, number>();
  for (const tok of tokens) {
    const t = termOf(tok);
    if (t) counts.set(t, (counts.get(t) ?? 0) + 1);
  }
  return { counts, length: new Set(tokens).size };
}
