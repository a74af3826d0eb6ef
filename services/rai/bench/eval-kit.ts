/** Shared pieces of the RAI evaluation set's generator: a seeded random source and one example's shape. */

/** One labelled example. `types` (PII only) lists the PII types present; `label` says whether the check must fire. */
export interface Example {
  text: string;
  label: boolean;
  types?: string[];
  /** Where the example comes from: which template family, positive or hard negative. */
  source: string;
}

/** mulberry32: a small seeded generator, so the set is the same on every run and machine. */
export function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export type Rand = () => number;
export const pick = <T>(r: Rand, xs: readonly T[]): T => xs[Math.floor(r() * xs.length)]!;
export const int = (r: Rand, lo: number, hi: number): number => lo + Math.floor(r() * (hi - lo + 1));
export const chars = (r: Rand, alphabet: string, n: number): string =>
  Array.from({ length: n }, () => pick(r, [...alphabet])).join('');
export const ALNUM = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
export const HEX = '0123456789abcdef';

/** `n` examples from `make`, each given the running index. */
export const times = (n: number, make: (i: number) => Example): Example[] =>
  Array.from({ length: n }, (_, i) => make(i));

const OPENERS = ['', '', 'Hi, ', 'Quick question: ', 'Hello team, ', 'FYI: ', 'Note: ', 'Okay. '];
const CLOSERS = ['', '', ' Thanks.', ' Thank you!', ' Cheers.', ' Let me know.', ' (urgent)'];

/** The same sentence with an everyday opener and closer, so repeated templates still give distinct texts. */
export const vary = (r: Rand, text: string): string => `${pick(r, OPENERS)}${text}${pick(r, CLOSERS)}`;

/** Keeps the first example of each text. */
export function unique(examples: Example[]): Example[] {
  const seen = new Set<string>();
  return examples.filter((e) => (seen.has(e.text) ? false : (seen.add(e.text), true)));
}
