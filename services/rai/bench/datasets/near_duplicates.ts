/**
 * Near-duplicate filtering shared by prepare scripts: a text sharing at least half of its word 4-grams with one text
 * of a reference set is a near duplicate (the prompt-injection prepare scripts use it).
 */
import type { LabelledExample } from './source';

/** The dedupe key: folded, letters and digits only, single spaces. */
export const normalise = (text: string): string =>
  text
    .normalize('NFKD')
    .replace(/\p{M}/gu, '')
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, ' ')
    .trim();

export const shingles = (text: string): string[] => {
  const w = normalise(text).split(' ');
  const out: string[] = [];
  for (let i = 0; i + 4 <= w.length; i++) out.push(w.slice(i, i + 4).join(' '));
  return [...new Set(out)];
};

/** Keeps the first of each normalised text, skipping any already in `seen` (which it extends). */
export function dedupe(examples: LabelledExample[], seen: Set<string>): LabelledExample[] {
  const out: LabelledExample[] = [];
  for (const e of examples) {
    const key = normalise(e.text);
    if (key.length < 3 || seen.has(key)) continue;
    seen.add(key);
    out.push(e);
  }
  return out;
}

/** Drops texts that share at least half their word 4-grams with one text of `reference`. */
export function dropNearDuplicates(examples: LabelledExample[], reference: LabelledExample[]): LabelledExample[] {
  const index = new Map<string, number[]>();
  reference.forEach((r, i) => {
    for (const s of shingles(r.text)) {
      const list = index.get(s);
      if (list) list.push(i);
      else index.set(s, [i]);
    }
  });
  return examples.filter((e) => {
    const sh = shingles(e.text);
    if (sh.length < 6) return true;
    const counts = new Map<number, number>();
    for (const s of sh) for (const i of index.get(s) ?? []) counts.set(i, (counts.get(i) ?? 0) + 1);
    return ![...counts.values()].some((c) => c >= sh.length / 2);
  });
}
