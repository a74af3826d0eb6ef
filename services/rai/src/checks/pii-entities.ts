/**
 * People and places from gazetteers and context, over word tokens (no tagger: a 2 KB text costs well under 1 ms).
 * The lists are pii-lexicon.ts's, the tokens pii-tokens.ts's, the rules pii-entity-rules.ts's.
 *
 * PERSON: a known first name (with the capitalised words after it), an honorific or role ("Dr", "Senator", "Pope") and
 * the capitalised words after it, a capitalised word followed by a known last name, a capitalised known last name
 * alone, and a name after "my name is", "Dear", "called", "named", "thanks", "hi". LOCATION: a known place (longest
 * match, up to 4 words; lower case only when not a common word), a capitalised name ending in a place word ("Central
 * Park", "Fayette County", "Baker Street"), "Lake/Mount X", and a capitalised word after "in/from/near/visiting".
 */
import { entityAt, type EntityScan } from './pii-entity-rules';
import * as lists from './pii-lexicon';
import type { PiiSpan } from './pii-patterns';
import { tokenize, type Token } from './pii-tokens';

export { tokenize, type Token };

/** Per-token facts the trained tagger reads (pii/ner-tagger.ts): list memberships and cues. */
export function tokenFacts(t: Token): string[] {
  const f: string[] = [];
  if (lists.FIRST.has(t.low)) f.push('first');
  if (lists.ENGLISH_FIRST.has(t.low)) f.push('efirst');
  if (lists.LAST.has(t.low)) f.push('last');
  if (lists.PLACE.has(t.low)) f.push('place');
  if (lists.MAJOR_PLACE.has(t.low)) f.push('major');
  if (lists.KNOWN_PERSON.has(t.low)) f.push('known');
  if (lists.COMMON.has(t.low)) f.push('common');
  if (lists.VECTOR_PERSON.has(t.low)) f.push('vperson');
  if (lists.VECTOR_PLACE.has(t.low)) f.push('vplace');
  if (lists.NOT_NAMES.has(t.low)) f.push('notname');
  if (lists.HONORIFIC.test(t.word.replace(/\.$/, ''))) f.push('honorific');
  if (lists.PLACE_WORD.test(t.word)) f.push('placeword');
  if (lists.LOCATIVE.test(t.word)) f.push('locative');
  return f;
}

/** PERSON and LOCATION spans of the text. */
export function entitySpans(text: string, want: { person: boolean; location: boolean }): PiiSpan[] {
  const tokens = tokenize(text);
  const out: PiiSpan[] = [];
  const scan: EntityScan = {
    text,
    tokens,
    out,
    push: (type, a, b) => {
      if ((type === 'PERSON' ? want.person : want.location) && b.end > a.start)
        out.push({ type, start: a.start, end: b.end });
    },
  };
  let i = 0;
  while (i < tokens.length) i = entityAt(scan, i) + 1;
  return out;
}
