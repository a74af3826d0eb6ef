/**
 * The text of the graph benchmarks (bench/graph/graph.bench.ts and extract.bench.ts read the same pages): sentences
 * naming a person, a company and a place, then words drawn with Zipf's law from a made-up vocabulary.
 */
import { createHash } from 'node:crypto';

import { zipfVocabulary } from '../kit/zipf';

const SYLLABLES = 'ka lo mi ne ru sa te vi zo pa de fi gu ho ja ke la mo nu pi ra se ti vu wa xe yo zu ba ce'.split(
  ' ',
);
/** A vocabulary of 20,000 made-up words; chunk text draws from it with Zipf's law (s = 1), as natural text does. */
export const VOCABULARY = zipfVocabulary(20_000, SYLLABLES, 'ra');
const PEOPLE = [
  'Ada Lovelace',
  'Charles Babbage',
  'Grace Hopper',
  'Alan Turing',
  'Katherine Johnson',
  'Edsger Dijkstra',
];
const PLACES = ['Paris', 'Lisbon', 'Oslo', 'Reykjavik', 'Madrid', 'Vienna'];

/** A deterministic random source per item (mulberry32 over a hash of the seed). */
export function random(seed: string): () => number {
  let a = createHash('md5').update(seed).digest().readUInt32LE(0);
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Deterministic prose for item `i`: sentences naming a person, a company and a place, then Zipf-drawn words. */
export function prose(i: number, sentences: number): string {
  const rand = random(String(i));
  const out: string[] = [];
  for (let s = 0; s < sentences; s++) {
    const words = Array.from({ length: 12 }, () => VOCABULARY.draw(rand)).join(' ');
    out.push(
      `${PEOPLE[Math.floor(rand() * PEOPLE.length)]} founded Company${Math.floor(rand() * 50)} in ${PLACES[Math.floor(rand() * PLACES.length)]}. The ${words}.`,
    );
  }
  return out.join(' ');
}
