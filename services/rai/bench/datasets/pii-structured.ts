/**
 * The structured PII values of the PII evaluation sets (pii.ts, which embeds them in the corpora's sentences; sources
 * and licences in SOURCES.md), from seeded randomness:
 *
 * - PHONE_NUMBER from libphonenumber's per-region example numbers (fixed line and mobile of every region, read by
 *   pii.ts at a pinned commit), written with the region's own national and international formats (the metadata's
 *   `numberFormat` rules) and the variants people type (`00` prefix, `+44 (0)20 …`, dashes, dots, no separators);
 * - CREDIT_CARD, EMAIL_ADDRESS, IP_ADDRESS, US_SSN, URL and DATE_TIME from small generators written here from the
 *   formats' definitions (issuer prefixes and Luhn, RFC shapes, the SSA's area/group/serial rules, common date
 *   notations), never from the detectors' patterns.
 */
import { seeded } from '../eval-kit';
import type { LabelledExample } from './source';

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
export function structured(
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
