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
 *   US_SSN, URL and DATE_TIME from small generators written here from the formats' definitions (issuer prefixes and
 *   Luhn, RFC shapes, the SSA's area/group/serial rules, common date notations), never from the detectors' patterns.
 *   Each value is embedded in a real sentence of the corpus of that split (WNUT for train/heldout, BTC for cross).
 *
 * Run: `RAI_DATASETS_DIR=<folder of snapshots> npx ts-node --transpile-only bench/datasets/pii.ts`.
 */
import { seeded } from '../eval-kit';
import { inTestShare, readSource, writeSplit, type LabelledExample, type Split } from './source';

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

/** CoNLL sentences (token TAB tag, blank line between sentences), tokens joined by single spaces. */
export function conllSentences(raw: string): Sentence[] {
  const out: Sentence[] = [];
  let tokens: string[] = [];
  let tags: string[] = [];
  const flush = () => {
    if (tokens.length > 0) out.push(toSentence(tokens, tags));
    tokens = [];
    tags = [];
  };
  for (const line of raw.split(/\r?\n/)) {
    const parts = line.split('\t');
    if (line.trim() === '' || parts.length < 2 || parts[0]!.trim() === '') {
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

// ---------------------------------------------------------------- seeded randomness

export const rng = seeded;
type Rand = () => number;
const pick = <T>(r: Rand, xs: readonly T[]): T => xs[Math.floor(r() * xs.length)]!;
const int = (r: Rand, lo: number, hi: number) => lo + Math.floor(r() * (hi - lo + 1));
const digits = (r: Rand, n: number) => Array.from({ length: n }, () => String(int(r, 0, 9))).join('');

// ---------------------------------------------------------------- phone numbers from libphonenumber's metadata

interface NumberFormat {
  pattern: RegExp;
  leading?: RegExp;
  format: string;
  npRule?: string;
}
export interface Region {
  id: string;
  cc: string;
  np?: string;
  formats: NumberFormat[];
  examples: string[];
}

const squeeze = (s: string) => s.replace(/\s+/g, '');
const attr = (tag: string, name: string) => new RegExp(`\\b${name}="([^"]*)"`).exec(tag)?.[1];

/** Regions of PhoneNumberMetadata.xml: country code, national prefix, formats and example numbers. */
export function parsePhoneMetadata(xml: string): Region[] {
  const out: Region[] = [];
  for (const m of xml.matchAll(/<territory\b([^>]*)>([\s\S]*?)<\/territory>/g)) {
    const head = m[1]!;
    const body = m[2]!.replace(/<!--[\s\S]*?-->/g, '');
    const id = attr(head, 'id')!;
    if (!/^[A-Z]{2}$/.test(id)) continue; // "001": non-geographic entities
    const territoryRule = attr(head, 'nationalPrefixFormattingRule');
    const formats: NumberFormat[] = [];
    for (const f of body.matchAll(/<numberFormat\b([^>]*)>([\s\S]*?)<\/numberFormat>/g)) {
      const leadings = [...f[2]!.matchAll(/<leadingDigits>([\s\S]*?)<\/leadingDigits>/g)].map((l) => squeeze(l[1]!));
      const format = /<format>([\s\S]*?)<\/format>/.exec(f[2]!)?.[1];
      if (!format) continue;
      const last = leadings[leadings.length - 1];
      formats.push({
        pattern: new RegExp(`^(?:${squeeze(attr(f[1]!, 'pattern')!)})$`),
        leading: last ? new RegExp(`^(?:${last})`) : undefined,
        format,
        npRule: attr(f[1]!, 'nationalPrefixFormattingRule') ?? territoryRule,
      });
    }
    const examples = ['fixedLine', 'mobile']
      .map((kind) => new RegExp(`<${kind}>[\\s\\S]*?<exampleNumber>(\\d+)<\\/exampleNumber>`).exec(body)?.[1])
      .filter((x): x is string => x !== undefined);
    out.push({ id, cc: attr(head, 'countryCode')!, np: attr(head, 'nationalPrefix'), formats, examples });
  }
  return out.filter((r) => r.examples.length > 0);
}

/** The number grouped by the region's format: `{national, international}`, or undefined when no format applies. */
export function formatNumber(region: Region, nsn: string): { national: string; intl: string } | undefined {
  const f = region.formats.find((x) => (!x.leading || x.leading.test(nsn)) && x.pattern.test(nsn));
  if (!f) return undefined;
  const m = f.pattern.exec(nsn)!;
  const grouped = f.format.replace(/\$(\d)/g, (_, i: string) => m[Number(i)] ?? '');
  const firstGroup = m[1] ?? '';
  let national = grouped;
  if (f.npRule && region.np) {
    const rule = f.npRule.replace('$NP', region.np).replace('$FG', firstGroup);
    national = grouped.replace(firstGroup, rule);
  }
  return { national, intl: `+${region.cc} ${grouped}` };
}

/** The ways people write one number: international with + or 00, national, other separators, `(0)`. */
function phoneVariants(region: Region, nsn: string): string[] {
  const f = formatNumber(region, nsn);
  if (!f) return [`+${region.cc} ${nsn}`];
  const v = [
    f.intl,
    `00${region.cc} ${f.intl.slice(region.cc.length + 2)}`,
    f.intl.replace(/ /g, '-'),
    `+${region.cc}${nsn}`,
  ];
  if (f.national !== f.intl && region.np !== undefined) {
    v.push(f.national, f.national.replace(/[ ]/g, '-'), f.national.replace(/ /g, '.'));
    if (region.np === '0') v.push(`+${region.cc} (0)${f.intl.slice(region.cc.length + 2)}`);
  }
  return v;
}

// ---------------------------------------------------------------- other structured types

function luhnComplete(body: string): string {
  let sum = 0;
  for (let i = 0; i < body.length; i++) {
    let d = Number(body[body.length - 1 - i]);
    if (i % 2 === 0) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
  }
  return body + String((10 - (sum % 10)) % 10);
}

/** Issuer prefixes and lengths: Visa, Mastercard 51–55 and 2221–2720, Amex, Discover, JCB, Diners, UnionPay. */
function card(r: Rand): string {
  const kind = int(r, 0, 7);
  const [prefix, len] = (
    [
      ['4', 16],
      [String(int(r, 51, 55)), 16],
      [String(int(r, 2221, 2720)), 16],
      [pick(r, ['34', '37']), 15],
      ['6011', 16],
      [String(int(r, 3528, 3589)), 16],
      [pick(r, ['36', '38']), 14],
      ['62', pick(r, [16, 19])],
    ] as [string, number][]
  )[kind]!;
  const n = luhnComplete(prefix + digits(r, len - prefix.length - 1));
  const sep = pick(r, [' ', '-', '']);
  if (len === 15) return [n.slice(0, 4), n.slice(4, 10), n.slice(10)].join(sep);
  if (len === 14) return [n.slice(0, 4), n.slice(4, 10), n.slice(10)].join(sep);
  return n.match(/.{1,4}/g)!.join(sep);
}

const LOCALS = [
  'j.smith',
  'maria_k',
  'info',
  'support',
  'tom.b+news',
  'a.nguyen',
  'kev99',
  'office',
  'hello',
  'r-ortiz',
];
const DOMAINS = ['gmail.com', 'yahoo.co.uk', 'outlook.com', 'uni-bonn.de', 'company.io', 'mail.example.org', 'gov.in'];
const email = (r: Rand) => `${pick(r, LOCALS)}${pick(r, ['', String(int(r, 1, 99))])}@${pick(r, DOMAINS)}`;

function ip(r: Rand): string {
  if (r() < 0.7) return [int(r, 1, 223), int(r, 0, 255), int(r, 0, 255), int(r, 1, 254)].join('.');
  const groups = Array.from({ length: 8 }, () => int(r, 0, 65535).toString(16));
  if (r() < 0.5) return groups.join(':');
  return `${groups.slice(0, 3).join(':')}::${groups.slice(6).join(':')}`;
}

function ssn(r: Rand): string {
  let area = int(r, 1, 899);
  if (area === 666) area = 665;
  const parts = [
    String(area).padStart(3, '0'),
    String(int(r, 1, 99)).padStart(2, '0'),
    String(int(r, 1, 9999)).padStart(4, '0'),
  ];
  return parts.join(r() < 0.85 ? '-' : ' ');
}

const HOSTS = ['github.com', 'en.wikipedia.org', 'bbc.co.uk', 'news.ycombinator.com', 'docs.python.org', 'example.net'];
const PATHS = ['', '/', '/wiki/Main_Page', '/about', '/search?q=test&lang=en', '/a/b/c.html', '/2019/05/story-123'];
const url = (r: Rand) =>
  `${pick(r, ['https://', 'http://', 'https://www.', 'www.'])}${pick(r, HOSTS)}${pick(r, PATHS)}`;

const MONTHS = [
  'January',
  'February',
  'March',
  'April',
  'May',
  'June',
  'July',
  'August',
  'September',
  'October',
  'November',
  'December',
];
const DAYS = ['Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday', 'Sunday'];
function date(r: Rand): string {
  const y = int(r, 1950, 2030);
  const mo = int(r, 1, 12);
  const d = int(r, 1, 28);
  const p2 = (n: number) => String(n).padStart(2, '0');
  const hour = int(r, 1, 12);
  return pick(r, [
    `${y}-${p2(mo)}-${p2(d)}`,
    `${p2(d)}/${p2(mo)}/${y}`,
    `${mo}/${d}/${y}`,
    `${d}.${mo}.${y}`,
    `${MONTHS[mo - 1]} ${d}, ${y}`,
    `${d} ${MONTHS[mo - 1]} ${y}`,
    `${MONTHS[mo - 1]!.slice(0, 3)} ${d}`,
    `${d}${d === 1 ? 'st' : d === 2 ? 'nd' : d === 3 ? 'rd' : 'th'} of ${MONTHS[mo - 1]}`,
    `${MONTHS[mo - 1]} ${y}`,
    `${pick(r, DAYS)} at ${hour}${pick(r, ['pm', 'am', ':30 pm', ':15'])}`,
    `${hour}:${p2(int(r, 0, 59))} ${pick(r, ['am', 'pm', 'AM', 'PM'])}`,
    `${y}-${p2(mo)}-${p2(d)}T${p2(int(r, 0, 23))}:${p2(int(r, 0, 59))}:00Z`,
    `next ${pick(r, DAYS)}`,
    `last ${pick(r, ['week', 'month', 'year', 'night'])}`,
    `${pick(r, ['yesterday', 'tomorrow', 'tonight', 'this morning'])}`,
    `${int(r, 2, 10)} ${pick(r, ['days', 'weeks', 'years'])} ago`,
  ]);
}

/** Lead-ins and tails people write around a value; '' = the bare value. */
const LEADS: Record<string, string[]> = {
  PHONE_NUMBER: ['call me on', 'my number is', 'Tel:', 'ring us at', 'text', 'WhatsApp', 'phone', 'mobile:', '', ''],
  CREDIT_CARD: ['card number', 'my card is', 'pay with', 'cc:', '', ''],
  EMAIL_ADDRESS: ['email me at', 'contact', 'mail:', 'send it to', '', ''],
  IP_ADDRESS: ['server at', 'my IP is', 'ping', 'host', 'from', ''],
  US_SSN: ['SSN', 'social security number', 'ssn:', 'my SSN is', ''],
  URL: ['see', 'link:', 'check out', 'more at', '', ''],
  DATE_TIME: ['on', 'due', 'since', 'meet', 'born', '', ''],
};

interface StructuredSource {
  regions: Region[];
}

function structuredValue(type: string, r: Rand, src: StructuredSource): string {
  switch (type) {
    case 'PHONE_NUMBER': {
      const region = pick(r, src.regions);
      return pick(r, phoneVariants(region, pick(r, region.examples)));
    }
    case 'CREDIT_CARD':
      return card(r);
    case 'EMAIL_ADDRESS':
      return email(r);
    case 'IP_ADDRESS':
      return ip(r);
    case 'US_SSN':
      return ssn(r);
    case 'URL':
      return url(r);
    default:
      return date(r);
  }
}

const STRUCTURED = ['PHONE_NUMBER', 'CREDIT_CARD', 'EMAIL_ADDRESS', 'IP_ADDRESS', 'US_SSN', 'URL', 'DATE_TIME'];

/** `n` examples per structured type, each value in a sentence of `carriers` (sentences with no annotated entity). */
function structured(
  carriers: string[],
  n: number,
  seed: number,
  src: StructuredSource,
  source: string,
): LabelledExample[] {
  const r = rng(seed);
  const out: LabelledExample[] = [];
  for (const type of STRUCTURED) {
    for (let i = 0; i < n; i++) {
      const value = structuredValue(type, r, src);
      const lead = pick(r, LEADS[type]!);
      const piece = lead ? `${lead} ${value}` : value;
      const carrier = pick(r, carriers);
      const text = r() < 0.5 ? `${carrier} ${piece}` : `${piece[0]!.toUpperCase()}${piece.slice(1)} , ${carrier}`;
      out.push({
        text,
        label: true,
        source: `${source}+generated:${type}`,
        types: [type],
        entities: [{ type, text: value }],
      });
    }
  }
  return out;
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
  const regions = parsePhoneMetadata(readSource(PHONE_METADATA.repo, PHONE_METADATA.commit, PHONE_METADATA.path));
  const src = { regions };

  const seen = new Set<string>();
  const dedup = <T extends { text: string }>(xs: T[]) =>
    xs.filter((x) => (seen.has(x.text) ? false : (seen.add(x.text), true)));
  const wnutU = dedup(wnut);
  const btcU = dedup(btc);
  const heldout = wnutU.filter((s) => inTestShare(s.text, HELDOUT_SHARE));
  const train = wnutU.filter((s) => !inTestShare(s.text, HELDOUT_SHARE));

  const carriers = (xs: Sentence[]) => xs.filter(carrierOk).map((s) => s.text);
  return {
    train: [...nerExamples(train, 'wnut17'), ...structured(carriers(train), 300, 1, src, 'wnut17')],
    heldout: [...nerExamples(heldout, 'wnut17'), ...structured(carriers(heldout), 200, 2, src, 'wnut17')],
    cross: [...nerExamples(btcU, 'btc'), ...structured(carriers(btcU), 200, 3, src, 'btc')],
  };
}

if (require.main === module) {
  const splits = prepare();
  for (const split of ['train', 'heldout', 'cross'] as const) {
    const xs = splits[split];
    const counts: Record<string, number> = {};
    for (const e of xs) for (const en of e.entities ?? []) counts[en.type] = (counts[en.type] ?? 0) + 1;
    const file = writeSplit('pii', split, xs);
    // eslint-disable-next-line no-console
    console.log(`${split}: ${xs.length} examples (${xs.filter((x) => x.label).length} positive) → ${file}`, counts);
  }
}
