import nlp from 'compromise';

import { COMMON_WORDS, FIRST_NAMES, LAST_NAMES, MAJOR_PLACES, PLACES, regions } from '@platform/gazetteer';

import type { PiiSpan } from './pii-patterns';

/**
 * People and places from gazetteers and context, over word tokens (no tagger: a 2 KB text costs well under 1 ms).
 *
 * Lists (`@platform/gazetteer`, generated from npm packages): ~22,600 first and ~17,750 last names of every faker
 * locale, ~23,000 cities of ≥ 15,000 people with every country, its native name and capital, and ~16,600 common
 * lower-case English words (SUBTLEX-US) that a lower-case token may be instead of a name; plus compromise's lexicon
 * (first names, cities, regions) and the states, provinces and abbreviations below.
 *
 * PERSON: a known first name (with the capitalised words after it), an honorific or role ("Dr", "Senator", "Pope") and
 * the capitalised words after it, a capitalised word followed by a known last name, a capitalised known last name
 * alone, and a name after "my name is", "Dear", "called", "named", "thanks", "hi". LOCATION: a known place (longest
 * match, up to 4 words; lower case only when not a common word), a capitalised name ending in a place word ("Central
 * Park", "Fayette County", "Baker Street"), "Lake/Mount X", and a capitalised word after "in/from/near/visiting".
 */
const lexicon = (nlp.model() as { one: { lexicon: Record<string, string | string[]> } }).one.lexicon;

const setOf = (s: string) => new Set(s.split('|'));
const FIRST = setOf(FIRST_NAMES);
/** First names common in English text (compromise's lexicon): the only ones read in lower case ("mike", "sarah"). */
const ENGLISH_FIRST = new Set<string>();
/** Well-known people of compromise's lexicon ("barack obama", "beyonce", "hitler"), one or more words. */
const KNOWN_PERSON = new Set<string>();
const LAST = setOf(LAST_NAMES);
const COMMON = setOf(COMMON_WORDS);
const PLACE = setOf(PLACES);
for (const [w, t] of Object.entries(lexicon)) {
  const tags = Array.isArray(t) ? t : [t];
  if (tags.some((x) => x === 'City' || x === 'Country' || x === 'Region')) PLACE.add(w);
  if (tags.some((x) => x === 'MaleName' || x === 'FemaleName' || x === 'FirstName')) {
    FIRST.add(w);
    ENGLISH_FIRST.add(w);
  }
  if (tags.includes('LastName')) LAST.add(w);
  if (tags.includes('Person')) KNOWN_PERSON.add(w);
}
/** Abbreviations read as places only in capitals ("LA", not "la"; "US", not "us"). */
const ABBREVIATIONS = new Set('NYC LA SF DC UK US USA U.S. U.S.A. U.K. UAE NY NJ ATL NOLA'.split(' '));
for (const r of regions()) PLACE.add(r);
/** Places read in lower case too: countries and regions ("japan", "ireland"), and big cities. */
const MAJOR_PLACE = new Set([...regions(), ...MAJOR_PLACES.split('|')]);
for (const [w, t] of Object.entries(lexicon))
  if ([t].flat().some((x) => x === 'Country' || x === 'Region')) MAJOR_PLACE.add(w);
/** Two-letter US state codes, read as places only in capitals after a place or a comma ("Dayton, NJ"). */
const STATE_CODES = new Set(
  'AL AK AZ AR CA CO CT DE FL GA HI ID IL IN IA KS KY LA ME MD MA MI MN MS MO MT NE NV NH NJ NM NY NC ND OH OK OR PA RI SC SD TN TX UT VT VA WA WV WI WY DC'.split(
    ' ',
  ),
);
/** Words that are names in some list but mostly something else in English text. */
const NOT_NAMES = new Set(
  'i|a|an|the|and|or|of|in|on|at|to|for|by|with|from|de|la|le|el|da|di|du|van|von|der|den|del|des|lol|omg|rt|ok|oh|yes|no|god|lord|jesus|christ|love|baby|happy|good|new|old|big|little|great|dear|sir|mr|mrs|ms|dr|st|mt|im|ill|ive|dont|cant|u|ur|ya|yo|haha|hey|hi|bye|thanks|thank|please|so|my|me|you|we|he|she|it|they|this|that|today|tonight|tomorrow|monday|tuesday|wednesday|thursday|friday|saturday|sunday|january|february|march|april|may|june|july|august|september|october|november|december|jan|feb|mar|apr|jun|jul|aug|sep|sept|oct|nov|dec|mon|tue|wed|thu|fri|sat|sun|date|christmas|easter|north|south|east|west|central|university|college|school|street|road|park|city|county|state|hotel|airport|station|media|video|music|online|live|news|twitter|facebook|youtube|google|apple|iphone|android|windows|microsoft|amazon|netflix'.split(
    '|',
  ),
);
const HONORIFIC =
  /^(?:mr|mrs|ms|miss|mx|dr|prof|professor|sir|dame|lady|lord|pope|president|pres|senator|sen|rep|representative|gov|governor|mayor|coach|captain|capt|cpt|king|queen|prince|princess|saint|officer|judge|justice|rev|reverend|father|fr|sister|brother|uncle|aunt|auntie|grandma|grandpa|chancellor|minister|pm|general|gen|col|colonel|sgt|sergeant|lt|lieutenant|detective|agent|dj|mc|mister|madam|madame|señor|senor|herr|frau)$/i;
/** Words that make the capitalised words before them a place. */
const PLACE_WORD =
  /^(?:street|st|avenue|ave|road|rd|boulevard|blvd|lane|ln|drive|way|place|square|sq|park|county|valley|lake|river|bay|beach|island|islands|mountain|mountains|mount|mt|pass|bridge|building|tower|center|centre|airport|station|stadium|arena|mall|plaza|hall|gardens|gdns|garden|castle|palace|cathedral|church|museum|zoo|harbour|harbor|port|falls|canyon|forest|desert|coast|heights|hills|village|town|city|district|province|state|republic|kingdom|field|stadium|cafe|café|bistro|inn|pub|bar|lounge|club|theatre|theater|observatory|glacier|school|academy|campus|hospital|venue|grounds|alley|world|bowl|hotel|motel|resort|market|terrace|highway|hwy|freeway|expressway)$/i;
const LOCATIVE = /^(?:in|from|near|visiting|visit|to|at|around|across|outside|inside|via|towards|toward)$/i;
const NAME_CUE =
  /(?:\bmy name is|\bname's|\bi am|\bi'm|\bdear|\bcalled|\bnamed|\bthanks|\bthank you|\bhi|\bhey|\bhello|\bcongrats|\bwith|\band|\bby|\bmeet|\bmet)\s+$/i;

/** Cues after which an unknown capitalised word is a name. */
const NAME_CUE_STRICT =
  /(?:\bmy name is|\bname's|\bdear|\bcalled|\bnamed|\bthanks|\bthank you|\bhi|\bhey|\bhello|\bcongrats(?: to)?|\bhappy birthday|\bmiss you|\blove you|\bRIP)\s+$/i;

export interface Token {
  word: string;
  low: string;
  start: number;
  end: number;
  shape: 'title' | 'upper' | 'lower' | 'other';
  initial: boolean;
  /** Part of a handle, hashtag, URL, path or code-like run ("@johan0394", "#MelbourneTomorrow"): never a name. */
  attached: boolean;
}

const TOKEN = /\p{L}[\p{L}\p{M}]*(?:['’.-]\p{L}[\p{L}\p{M}]*)*\.?/gu;

export function tokenize(text: string): Token[] {
  const out: Token[] = [];
  let prevEnd = 0;
  for (const m of text.matchAll(TOKEN)) {
    let word = m[0];
    // a trailing dot belongs to abbreviations only ("S.F.", "Dr."); else it ends the sentence
    if (word.endsWith('.') && !/\p{L}\.\p{L}/u.test(word) && !HONORIFIC.test(word.slice(0, -1)))
      word = word.slice(0, -1);
    const gap = text.slice(prevEnd, m.index);
    const initial = out.length === 0 || /[.!?:"“()\n]\s*$/.test(gap) || /^\s*[-–—|•]\s*$/.test(gap);
    const letters = word.replace(/[^\p{L}]/gu, '');
    const shape = /^\p{Lu}+$/u.test(letters)
      ? letters.length >= 2
        ? 'upper'
        : 'title'
      : /^\p{Lu}[\p{Ll}\p{M}]/u.test(letters) && !/\p{Lu}{2}/u.test(letters.slice(1))
        ? 'title'
        : /^\p{Ll}+$/u.test(letters)
          ? 'lower'
          : /^\p{Lu}/u.test(letters)
            ? 'title'
            : 'other';
    const runStart = text.lastIndexOf(' ', m.index) + 1;
    const runEnd = text.indexOf(' ', m.index);
    const run = text.slice(runStart, runEnd < 0 ? text.length : runEnd);
    // a hashtag of letters only ("#Denver") is a word; other runs with these characters are handles, links, code
    const attached = !/^#\p{L}+[.,!?:;]*$/u.test(run) && /[@#/\\=&_\d]|:\/\/|\p{L}\.(?:com|org|net)\b/u.test(run);
    out.push({ word, low: word.toLowerCase(), start: m.index, end: m.index + word.length, shape, initial, attached });
    prevEnd = m.index + m[0].length;
  }
  return out;
}

const capital = (t: Token | undefined) => t !== undefined && (t.shape === 'title' || t.shape === 'upper');
const common = (t: Token) => COMMON.has(t.low) || NOT_NAMES.has(t.low.replace(/\.$/, ''));
/** Adjacent tokens: only spaces (or a hyphen/apostrophe) between them. */
const adjacent = (text: string, a: Token, b: Token) => /^[ \t]{1,2}$/.test(text.slice(a.end, b.start));

/** Longest known place of 1–4 adjacent tokens from i, as a token count; 0 when none. */
function placeAt(text: string, tokens: Token[], i: number, set: Set<string> = PLACE): number {
  let key = '';
  let best = 0;
  for (let n = 1; n <= 4 && i + n - 1 < tokens.length; n++) {
    const t = tokens[i + n - 1]!;
    if (n > 1 && !adjacent(text, tokens[i + n - 2]!, t)) break;
    key = n === 1 ? t.low : `${key} ${t.low}`;
    if (set.has(key)) best = n;
  }
  return best;
}

/** Whether a token may be read as a name or place of a list: capitalised, or lower case and no common word. */
function nameLike(t: Token, lowerOk: boolean): boolean {
  if (NOT_NAMES.has(t.low) || common(t)) return false;
  if (t.shape === 'title') return true;
  if (t.shape === 'upper') return t.word.length >= 3;
  if (t.shape === 'lower') return lowerOk && t.word.length >= 3;
  return false;
}

/** PERSON and LOCATION spans of the text. */
/** Per-token facts the trained tagger reads (pii/ner-tagger.ts): list memberships and cues. */
export function tokenFacts(t: Token): string[] {
  const f: string[] = [];
  if (FIRST.has(t.low)) f.push('first');
  if (ENGLISH_FIRST.has(t.low)) f.push('efirst');
  if (LAST.has(t.low)) f.push('last');
  if (PLACE.has(t.low)) f.push('place');
  if (MAJOR_PLACE.has(t.low)) f.push('major');
  if (KNOWN_PERSON.has(t.low)) f.push('known');
  if (COMMON.has(t.low)) f.push('common');
  if (NOT_NAMES.has(t.low)) f.push('notname');
  if (HONORIFIC.test(t.word.replace(/\.$/, ''))) f.push('honorific');
  if (PLACE_WORD.test(t.word)) f.push('placeword');
  if (LOCATIVE.test(t.word)) f.push('locative');
  return f;
}

export function entitySpans(text: string, want: { person: boolean; location: boolean }): PiiSpan[] {
  const tokens = tokenize(text);
  const out: PiiSpan[] = [];
  const push = (type: 'PERSON' | 'LOCATION', a: Token, b: Token) => {
    if ((type === 'PERSON' ? want.person : want.location) && b.end > a.start)
      out.push({ type, start: a.start, end: b.end });
  };
  /** Capitalised tokens after i that continue a name (no place word, adjacent), up to `max`. */
  const nameTail = (i: number, max: number) => {
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
  };
  let i = 0;
  while (i < tokens.length) {
    const t = tokens[i]!;
    const prev = tokens[i - 1];
    const next = tokens[i + 1];
    const locative = prev !== undefined && LOCATIVE.test(prev.word) && adjacent(text, prev, t);
    if (t.attached) {
      i++;
      continue;
    }
    if (t.shape === 'upper' && ABBREVIATIONS.has(t.word)) {
      push('LOCATION', t, t);
      i++;
      continue;
    }

    // honorific or role + capitalised name: the name part
    if (HONORIFIC.test(t.word.replace(/\.$/, '')) && capital(t) && next && capital(next) && !common(next)) {
      const j = nameTail(i + 1, 2);
      push('PERSON', t, tokens[j]!);
      i = j + 1;
      continue;
    }
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
      push('LOCATION', t, next);
      i += 2;
      continue;
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
        push('LOCATION', t, tokens[j]!);
        i = j + 1;
        continue;
      }
    }
    const known = placeAt(text, tokens, i, KNOWN_PERSON);
    if (known > 0 && (known > 1 || nameLike(t, true))) {
      push('PERSON', t, tokens[i + known - 1]!);
      i += known;
      continue;
    }
    const place = placeAt(text, tokens, i);
    const first = FIRST.has(t.low);
    const nextLast =
      next !== undefined && capital(next) && adjacent(text, t, next) && LAST.has(next.low) && !common(next);
    const cue = first && NAME_CUE.test(text.slice(Math.max(0, t.start - 20), t.start));
    const surnameNext =
      next !== undefined &&
      adjacent(text, t, next) &&
      capital(next) &&
      !common(next) &&
      !NOT_NAMES.has(next.low) &&
      !next.attached &&
      placeAt(text, tokens, i + 1) === 0;
    // a name that is also a place: the place after a preposition of place, else the person when a surname follows
    if (place > 0 && (locative || !first || place > 1 || !(nextLast || surnameNext)) && !(first && cue && !locative)) {
      const span = tokens.slice(i, i + place);
      const ok =
        place > 1
          ? span.some((x) => x.shape !== 'lower') || locative || MAJOR_PLACE.has(span.map((x) => x.low).join(' '))
          : nameLike(t, MAJOR_PLACE.has(t.low) || locative) ||
            (locative && t.shape === 'title' && !NOT_NAMES.has(t.low));
      if (ok) {
        push('LOCATION', t, tokens[i + place - 1]!);
        i += place;
        continue;
      }
    }
    // "Dayton, NJ" / "Austin TX": a capital two-letter state code after a place or a comma
    if (
      t.shape === 'upper' &&
      STATE_CODES.has(t.word) &&
      prev &&
      (/,\s*$/.test(text.slice(prev.end, t.start)) || out.some((s) => s.type === 'LOCATION' && s.end === prev.end))
    ) {
      push('LOCATION', t, t);
      i++;
      continue;
    }
    const firstOk =
      nameLike(t, ENGLISH_FIRST.has(t.low)) ||
      (capital(t) && !NOT_NAMES.has(t.low) && !t.initial && (nextLast || surnameNext)) ||
      (cue && t.shape !== 'other' && !NOT_NAMES.has(t.low) && (t.shape !== 'lower' || ENGLISH_FIRST.has(t.low)));
    if (first && firstOk) {
      const j =
        capital(t) || nextLast
          ? nameTail(i, 2)
          : i +
            (next && next.shape === 'lower' && LAST.has(next.low) && !common(next) && adjacent(text, t, next) ? 1 : 0);
      push('PERSON', t, tokens[j]!);
      i = j + 1;
      continue;
    }
    // an unknown capitalised word followed by a known last name ("Scooter Braun"), or a known last name alone
    if (capital(t) && !common(t) && !t.initial && nextLast) {
      const j = nameTail(i, 2);
      push('PERSON', t, tokens[j]!);
      i = j + 1;
      continue;
    }
    if (t.shape === 'title' && LAST.has(t.low) && !common(t) && !NOT_NAMES.has(t.low)) {
      push('PERSON', t, t);
      i++;
      continue;
    }
    // an unknown capitalised word after a name cue ("thanks Keeva", "my name is Yoav") or before "said"/"says"
    if (
      t.shape === 'title' &&
      !common(t) &&
      !NOT_NAMES.has(t.low) &&
      t.word.length >= 3 &&
      (NAME_CUE_STRICT.test(text.slice(Math.max(0, t.start - 20), t.start)) ||
        /^\s+(?:said|says|tweeted|wrote|asked|told)\b/i.test(text.slice(t.end, t.end + 10)))
    ) {
      const j = nameTail(i, 2);
      push('PERSON', t, tokens[j]!);
      i = j + 1;
      continue;
    }
    // "in Rodanthe", "from Nijverdal": an unknown capitalised word after a preposition of place
    if (
      locative &&
      /^(?:in|from|near|visiting)$/i.test(prev.word) &&
      t.shape === 'title' &&
      !common(t) &&
      !NOT_NAMES.has(t.low)
    ) {
      const j = nameTail(i, 1);
      push('LOCATION', t, tokens[j]!);
      i = j + 1;
      continue;
    }
    i++;
  }
  return out;
}
