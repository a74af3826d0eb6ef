/** Word tokens of a text (pii-entities.ts), and the tests the entity rules make of them. */
import { COMMON, HONORIFIC, NOT_NAMES, PLACE } from './pii-lexicon';

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

export const capital = (t: Token | undefined) => t !== undefined && (t.shape === 'title' || t.shape === 'upper');
export const common = (t: Token) => COMMON.has(t.low) || NOT_NAMES.has(t.low.replace(/\.$/, ''));
/** Adjacent tokens: only spaces (or a hyphen/apostrophe) between them. */
export const adjacent = (text: string, a: Token, b: Token) => /^[ \t]{1,2}$/.test(text.slice(a.end, b.start));

/** Longest known place of 1–4 adjacent tokens from i, as a token count; 0 when none. */
export function placeAt(text: string, tokens: Token[], i: number, set: Set<string> = PLACE): number {
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
export function nameLike(t: Token, lowerOk: boolean): boolean {
  if (NOT_NAMES.has(t.low) || common(t)) return false;
  if (t.shape === 'title') return true;
  if (t.shape === 'upper') return t.word.length >= 3;
  if (t.shape === 'lower') return lowerOk && t.word.length >= 3;
  return false;
}
