import {
  ABBREVIATIONS,
  ENGLISH_FIRST,
  FIRST,
  HONORIFIC,
  KNOWN_PERSON,
  LAST,
  LOCATIVE,
  MAJOR_PLACE,
  NAME_CUE,
  NAME_CUE_STRICT,
  NOT_NAMES,
  PLACE_WORD,
  STATE_CODES,
  VECTOR_PERSON,
  VECTOR_PLACE,
} from './pii-lexicon';
import type { PiiSpan } from './pii-patterns';
import { adjacent, capital, common, nameLike, placeAt, type Token } from './pii-tokens';

/** The scan of one text for entities: its tokens, the spans found so far, and how to add one (when wanted). */
export interface EntityScan {
  text: string;
  tokens: Token[];
  out: PiiSpan[];
  push: (type: 'PERSON' | 'LOCATION', a: Token, b: Token) => void;
}

/** The token at i with its neighbours, and whether a preposition of place comes right before it. */
interface At {
  i: number;
  t: Token;
  prev: Token | undefined;
  next: Token | undefined;
  locative: boolean;
}

/** What the list rules read of the token at i: places and names from the lists, and the context of a name. */
interface ListFacts {
  place: number;
  first: boolean;
  nextLast: boolean;
  cue: boolean;
  surnameNext: boolean;
}

/** Capitalised tokens after i that continue a name (no place word, adjacent), up to `max`. */
function nameTail({ text, tokens }: EntityScan, i: number, max: number): number {
  let j = i;
  while (
    j + 1 < tokens.length &&
    j + 1 - i <= max &&
    adjacent(text, tokens[j]!, tokens[j + 1]!) &&
    capital(tokens[j + 1]) &&
    !NOT_NAMES.has(tokens[j + 1]!.low) &&
    !PLACE_WORD.test(tokens[j + 1]!.word) &&
    (tokens[j + 1]!.shape === 'title' || !common(tokens[j + 1]!))
  )
    j++;
  return j;
}

/** A person from t to the end of its name (the capitalised tokens after `from`, up to `max`): the last token. */
function personTo(s: EntityScan, t: Token, from: number, max: number): number {
  const j = nameTail(s, from, max);
  s.push('PERSON', t, s.tokens[j]!);
  return j;
}

/**
 * Rules of shape, of title and place words, and well-known people, tried first; like every rule, the last token of
 * what it took (pushed as a span when it is one), or undefined when it does not hold.
 */
function shapeRules(s: EntityScan, { i, t, prev, next }: At): number | undefined {
  const { text, tokens } = s;
  if (t.attached) return i;
  if (t.shape === 'upper' && ABBREVIATIONS.has(t.word)) {
    s.push('LOCATION', t, t);
    return i;
  }

  // honorific or role + capitalised name: the name part
  if (HONORIFIC.test(t.word.replace(/\.$/, '')) && capital(t) && next && capital(next) && !common(next))
    return personTo(s, t, i + 1, 2);
  // capitalised place words: "Central Park", "Fayette County", "Lake Charles", "Mount Hood"
  if (
    capital(t) &&
    /^(?:lake|mount|mt|port|fort|san|santa|st|saint|new|el|los|las|hotel|club|camp|cafe|café|university)$/i.test(
      t.word.replace(/\.$/, ''),
    ) &&
    next &&
    capital(next) &&
    adjacent(text, t, next) &&
    !common(next)
  ) {
    s.push('LOCATION', t, next);
    return i + 1;
  }
  if (capital(t) && !t.initial) {
    let j = i;
    while (
      j + 1 < tokens.length &&
      j - i < 3 &&
      capital(tokens[j + 1]) &&
      adjacent(text, tokens[j]!, tokens[j + 1]!) &&
      !PLACE_WORD.test(tokens[j]!.word)
    )
      j++;
    if (j > i && PLACE_WORD.test(tokens[j]!.word)) {
      s.push('LOCATION', t, tokens[j]!);
      return j;
    }
  }
  // "Istanbul, Turkey", "Amman, Jordan": a known place right after a place and a comma, even a common word or a name
  const place = capital(t) && prev && /^\s*,\s*$/.test(text.slice(prev.end, t.start)) ? placeAt(text, tokens, i) : 0;
  if (place > 0 && s.out.some((x) => x.type === 'LOCATION' && x.end === prev!.end)) {
    s.push('LOCATION', t, tokens[i + place - 1]!);
    return i + place - 1;
  }
  const speaker = speakerAt(s, i);
  if (speaker !== undefined) return speaker;
  const known = placeAt(text, tokens, i, KNOWN_PERSON);
  if (known > 0 && (known > 1 || nameLike(t, true))) {
    s.push('PERSON', t, tokens[i + known - 1]!);
    return i + known - 1;
  }
  return undefined;
}

const SPEECH =
  /^(?:said|says|told|added|explained|noted|wrote|tweeted|asked|replied|stated|announced|insisted|warned)$/i;
const DETERMINER = /^(?:the|a|an|this|that|these|those|our|his|her|their|its|my|your)$/i;

/**
 * A speaker in reported speech, even when the word is also a place or a common word: "…, Davis said", "Cook said",
 * "said Volesky.", "according to Abadi". Not after a determiner ("the Police said") and not a sentence's first word
 * that is a common word ("Officials said").
 */
function speakerAt(s: EntityScan, i: number): number | undefined {
  const { text, tokens } = s;
  const t = tokens[i]!;
  const prev = tokens[i - 1];
  const next = tokens[i + 1];
  if (t.shape !== 'title' || t.word.length < 3 || NOT_NAMES.has(t.low) || t.attached) return undefined;
  if (/@\s*$/.test(text.slice(Math.max(0, t.start - 3), t.start))) return undefined;
  if (prev && DETERMINER.test(prev.word) && adjacent(text, prev, t)) return undefined;
  const before = next !== undefined && SPEECH.test(next.word) && adjacent(text, t, next) && (!t.initial || !common(t));
  const after =
    prev !== undefined &&
    (SPEECH.test(prev.word) || (/^to$/i.test(prev.word) && /\baccording\s+to\s*$/i.test(text.slice(0, t.start)))) &&
    adjacent(text, prev, t) &&
    !common(t) &&
    /^\s*(?:[.,;!?"”]|$)/.test(text.slice(tokens[nameTail(s, i, 2)]!.end));
  return before || after ? personTo(s, t, i, before ? 0 : 2) : undefined;
}

/** The list facts of the token at i (read once the rules before them have not held). */
function listFacts({ text, tokens }: EntityScan, { i, t, next }: At): ListFacts {
  const first = FIRST.has(t.low);
  return {
    place: placeAt(text, tokens, i),
    first,
    nextLast: next !== undefined && capital(next) && adjacent(text, t, next) && LAST.has(next.low) && !common(next),
    cue: first && NAME_CUE.test(text.slice(Math.max(0, t.start - 20), t.start)),
    surnameNext:
      next !== undefined &&
      adjacent(text, t, next) &&
      capital(next) &&
      !common(next) &&
      !NOT_NAMES.has(next.low) &&
      !next.attached &&
      placeAt(text, tokens, i + 1) === 0,
  };
}

/** Places of the lists, and state codes after a place. */
function placeRules(s: EntityScan, { i, t, prev, locative }: At, f: ListFacts): number | undefined {
  const { place, first, nextLast, cue, surnameNext } = f;
  // a name that is also a place: the place after a preposition of place, else the person when a surname follows
  if (place > 0 && (locative || !first || place > 1 || !(nextLast || surnameNext)) && !(first && cue && !locative)) {
    const span = s.tokens.slice(i, i + place);
    const ok =
      place > 1
        ? span.some((x) => x.shape !== 'lower') || locative || MAJOR_PLACE.has(span.map((x) => x.low).join(' '))
        : nameLike(t, MAJOR_PLACE.has(t.low) || locative) || (locative && t.shape === 'title' && !NOT_NAMES.has(t.low));
    if (ok) {
      s.push('LOCATION', t, s.tokens[i + place - 1]!);
      return i + place - 1;
    }
  }
  // "Dayton, NJ" / "Austin TX": a capital two-letter state code after a place or a comma
  if (
    t.shape === 'upper' &&
    STATE_CODES.has(t.word) &&
    prev &&
    (/,\s*$/.test(s.text.slice(prev.end, t.start)) || s.out.some((x) => x.type === 'LOCATION' && x.end === prev.end))
  ) {
    s.push('LOCATION', t, t);
    return i;
  }
  return undefined;
}

/** People of the lists: a known first name and what follows it, a known last name. */
function personRules(s: EntityScan, { i, t, next }: At, f: ListFacts): number | undefined {
  const { first, nextLast, cue, surnameNext } = f;
  const firstOk =
    nameLike(t, ENGLISH_FIRST.has(t.low)) ||
    (capital(t) && !NOT_NAMES.has(t.low) && !t.initial && (nextLast || surnameNext)) ||
    (cue && t.shape !== 'other' && !NOT_NAMES.has(t.low) && (t.shape !== 'lower' || ENGLISH_FIRST.has(t.low)));
  if (first && firstOk) {
    const j =
      capital(t) || nextLast
        ? nameTail(s, i, 2)
        : i +
          (next && next.shape === 'lower' && LAST.has(next.low) && !common(next) && adjacent(s.text, t, next) ? 1 : 0);
    s.push('PERSON', t, s.tokens[j]!);
    return j;
  }
  // an unknown capitalised word followed by a known last name ("Scooter Braun"), or a known last name alone
  if (capital(t) && !common(t) && !t.initial && nextLast) return personTo(s, t, i, 2);
  if (t.shape === 'title' && LAST.has(t.low) && !common(t) && !NOT_NAMES.has(t.low)) {
    s.push('PERSON', t, t);
    return i;
  }
  // a capitalised word on no list that word vectors place among people's names ("Trudeau") or places ("Kobane")
  if (/^\p{Lu}\p{Ll}+$/u.test(t.word) && !common(t) && !NOT_NAMES.has(t.low) && !t.attached) {
    if (VECTOR_PERSON.has(t.low)) return personTo(s, t, i, 2);
    if (VECTOR_PLACE.has(t.low)) {
      s.push('LOCATION', t, t);
      return i;
    }
  }
  return undefined;
}

/** Unknown capitalised words read from their context: a name cue before them, a preposition of place. */
function cueRules(s: EntityScan, { i, t, prev, locative }: At): number | undefined {
  const { text, tokens } = s;
  // every rule here reads an unknown capitalised word
  if (t.shape !== 'title' || common(t) || NOT_NAMES.has(t.low)) return undefined;
  // an unknown capitalised word after a name cue ("thanks Keeva", "my name is Yoav") or before "said"/"says"
  if (
    t.word.length >= 3 &&
    (NAME_CUE_STRICT.test(text.slice(Math.max(0, t.start - 20), t.start)) ||
      /^\s+(?:said|says|tweeted|wrote|asked|told)\b/i.test(text.slice(t.end, t.end + 10)))
  )
    return personTo(s, t, i, 2);
  // "Rabiyah and Zumar", "Aleppo, Daraya": an unknown capitalised word listed right after a person or a place
  const head =
    prev && /^\s*,\s*$/.test(text.slice(prev.end, t.start))
      ? prev
      : prev &&
          i >= 2 &&
          /^(?:and|or)$/i.test(prev.word) &&
          adjacent(text, tokens[i - 2]!, prev) &&
          adjacent(text, prev, t)
        ? tokens[i - 2]
        : undefined;
  const listedAfter = head && s.out.find((x) => x.end === head.end);
  if (t.word.length >= 3 && listedAfter) {
    const j = nameTail(s, i, 2);
    s.push(listedAfter.type as 'PERSON' | 'LOCATION', t, tokens[j]!);
    return j;
  }
  // "the town of Jabla", "the northern area of Sonmarg": an unknown capitalised word after a kind of place and "of"
  if (
    /\b(?:city|cities|town|towns|village|villages|province|region|district|area|county|state|island|suburb|port|capital|outskirts|governorate)\s+of\s+$/i.test(
      text.slice(Math.max(0, t.start - 30), t.start),
    )
  ) {
    const j = nameTail(s, i, 2);
    s.push('LOCATION', t, tokens[j]!);
    return j;
  }
  // "in Rodanthe", "from Nijverdal": an unknown capitalised word after a preposition of place
  if (locative && /^(?:in|from|near|visiting)$/i.test(prev!.word)) {
    const j = nameTail(s, i, 1);
    s.push('LOCATION', t, tokens[j]!);
    return j;
  }
  return undefined;
}

/** The rules at token i, in order: the last token of what the first that holds took, else i (nothing found there). */
export function entityAt(s: EntityScan, i: number): number {
  const t = s.tokens[i]!;
  const prev = s.tokens[i - 1];
  const at: At = {
    i,
    t,
    prev,
    next: s.tokens[i + 1],
    locative: prev !== undefined && LOCATIVE.test(prev.word) && adjacent(s.text, prev, t),
  };
  const taken = shapeRules(s, at);
  if (taken !== undefined) return taken;
  const facts = listFacts(s, at);
  return placeRules(s, at, facts) ?? personRules(s, at, facts) ?? cueRules(s, at) ?? i;
}
