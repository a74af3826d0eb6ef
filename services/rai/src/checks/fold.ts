/** Text folded for matching (accents, case and look-alike digits removed) with a map back to the original. */
export interface Folded {
  text: string;
  /** For each folded code unit, the [start, end) of the original character it came from. */
  starts: number[];
  ends: number[];
}

/** Digits and signs that stand for letters in obfuscated words (l33t): folded on both sides of a match. */
const LOOKALIKES: Record<string, string> = {
  '0': 'o',
  '1': 'i',
  '3': 'e',
  '4': 'a',
  '5': 's',
  '7': 't',
  '@': 'a',
  $: 's',
};
const MARKS = /\p{M}/gu;

/** One character folded: decomposed, marks dropped, lower-cased, look-alikes replaced. */
export function foldChar(ch: string): string {
  if (ch.length === 1 && ch.charCodeAt(0) < 128) return LOOKALIKES[ch] ?? ch.toLowerCase();
  const base = ch.normalize('NFKD').replace(MARKS, '').toLowerCase();
  return [...base].map((c) => LOOKALIKES[c] ?? c).join('');
}

/** Folds `text` character by character, keeping where each folded character came from. */
export function fold(text: string): Folded {
  const out: string[] = [];
  const starts: number[] = [];
  const ends: number[] = [];
  let i = 0;
  for (const ch of text) {
    const f = foldChar(ch);
    for (let k = 0; k < f.length; k++) {
      starts.push(i);
      ends.push(i + ch.length);
    }
    out.push(f);
    i += ch.length;
  }
  return { text: out.join(''), starts, ends };
}

/** A folded term only: accents, case and look-alikes as `fold`, spacing collapsed. */
export const foldTerm = (term: string): string => [...term.trim()].map(foldChar).join('').replace(/\s+/g, ' ');

/** Accents and case removed, nothing else: for phrase patterns, where look-alike digits would break words. */
export const plainFold = (text: string): string => text.normalize('NFKD').replace(MARKS, '').toLowerCase();
