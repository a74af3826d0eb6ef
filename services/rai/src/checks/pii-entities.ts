import nlp from 'compromise';

import type { PiiSpan } from './pii-patterns';

/**
 * People and places by compromise's English lexicon (first names, last names, cities, countries, regions), applied to
 * runs of capitalised words. compromise's full tagger reads the same lexicon but costs ~80 ms per 2 KB; a lookup over
 * capitalised runs costs well under a millisecond and finds the same names in running text.
 */
const lexicon = (nlp.model() as { one: { lexicon: Record<string, string | string[]> } }).one.lexicon;

const tagsOf = (word: string): string[] => {
  const t = lexicon[word.toLowerCase()];
  return t === undefined ? [] : Array.isArray(t) ? t : [t];
};
const PLACE_TAGS = new Set(['City', 'Country', 'Region', 'Place']);
const FIRST_NAME_TAGS = new Set(['FirstName', 'MaleName', 'FemaleName', 'Person']);
const isPlace = (w: string) => tagsOf(w).some((t) => PLACE_TAGS.has(t));
const isFirstName = (w: string) => tagsOf(w).some((t) => FIRST_NAME_TAGS.has(t));
const isLastName = (w: string) => tagsOf(w).includes('LastName');

const CAPITALISED = /\p{Lu}[\p{Ll}'’-]*\p{Ll}(?:\s+(?:\p{Lu}[\p{Ll}'’-]*\p{Ll}|\p{Lu}\.))*/gu;
const HONORIFIC_NAME = /\b(?:Mr|Mrs|Ms|Miss|Dr|Prof)\.?\s+\p{Lu}\p{Ll}+(?:\s+\p{Lu}\p{Ll}+)?/gu;

interface Token {
  word: string;
  start: number;
  end: number;
}

function tokensOf(run: string, offset: number): Token[] {
  return [...run.matchAll(/\S+/g)].map((m) => ({
    word: m[0],
    start: offset + m.index,
    end: offset + m.index + m[0].length,
  }));
}

/** Longest place name (up to 3 words) starting at token i, as a token count; 0 when none. */
function placeAt(tokens: Token[], i: number): number {
  for (let n = Math.min(3, tokens.length - i); n >= 1; n--) {
    if (
      isPlace(
        tokens
          .slice(i, i + n)
          .map((t) => t.word)
          .join(' '),
      )
    )
      return n;
  }
  return 0;
}

/** Words after which a name that is also a place ("Sydney", "Florence") is read as the place. */
const LOCATIVE = /\b(?:in|from|to|at|near|into|across|around|visit|visiting|via)\s+$/i;

/**
 * Spans of one run of capitalised words: places first (multi-word ones whole), then first names with their surnames.
 * `locative`: the run follows a preposition of place.
 */
function runSpans(tokens: Token[], want: { person: boolean; location: boolean }, locative: boolean): PiiSpan[] {
  const out: PiiSpan[] = [];
  let i = 0;
  while (i < tokens.length) {
    const place = placeAt(tokens, i);
    const personFirst =
      place === 0 || (!(locative && i === 0) && i + 1 < tokens.length && isLastName(tokens[i + 1]!.word));
    if (isFirstName(tokens[i]!.word) && personFirst) {
      let j = i + 1;
      while (j < tokens.length && j - i < 3 && placeAt(tokens, j) === 0) j++;
      if (want.person) out.push({ type: 'PERSON', start: tokens[i]!.start, end: tokens[j - 1]!.end });
      i = j;
    } else if (place > 0) {
      if (want.location) out.push({ type: 'LOCATION', start: tokens[i]!.start, end: tokens[i + place - 1]!.end });
      i += place;
    } else i++;
  }
  return out;
}

/** PERSON and LOCATION spans of the text. */
export function entitySpans(text: string, want: { person: boolean; location: boolean }): PiiSpan[] {
  const out: PiiSpan[] = [];
  for (const m of text.matchAll(CAPITALISED)) {
    out.push(...runSpans(tokensOf(m[0], m.index), want, LOCATIVE.test(text.slice(Math.max(0, m.index - 12), m.index))));
  }
  if (want.person)
    out.push(
      ...[...text.matchAll(HONORIFIC_NAME)].map((m) => ({
        type: 'PERSON' as const,
        start: m.index,
        end: m.index + m[0].length,
      })),
    );
  return out;
}
