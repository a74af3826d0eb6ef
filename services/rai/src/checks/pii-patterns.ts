import { isIPv6 } from 'node:net';

/** A candidate PII span of one type. */
export interface PiiSpan {
  type: PiiType;
  start: number;
  end: number;
}

export const PII_TYPES = [
  'CREDIT_CARD',
  'EMAIL_ADDRESS',
  'PHONE_NUMBER',
  'PERSON',
  'LOCATION',
  'IP_ADDRESS',
  'US_SSN',
  'URL',
  'DATE_TIME',
] as const;
export type PiiType = (typeof PII_TYPES)[number];

/** Luhn's checksum over the digits of a card number. */
export function luhnValid(digits: string): boolean {
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    let d = Number(digits[digits.length - 1 - i]);
    if (i % 2 === 1) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
  }
  return sum % 10 === 0;
}

const spansOf = (
  text: string,
  re: RegExp,
  type: PiiType,
  accept: (m: RegExpMatchArray) => boolean = () => true,
): PiiSpan[] =>
  [...text.matchAll(re)].filter(accept).map((m) => ({ type, start: m.index, end: m.index + m[0].length }));

const CARD = /(?<![\d-])\d(?:[ -]?\d){12,18}(?![\d-])/g;
const EMAIL =
  /(?<![\w.%+-])[A-Za-z0-9._%+-]{1,64}@[A-Za-z0-9](?:[A-Za-z0-9-]{0,62}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,62}[A-Za-z0-9])?)*\.[A-Za-z]{2,24}\b/g;
const SSN = /(?<![\d-])(\d{3})([- ])(\d{2})\2(\d{4})(?![\d-])/g;
const OCTET = '(?:25[0-5]|2[0-4]\\d|1\\d\\d|[1-9]?\\d)';
const IPV4 = new RegExp(`(?<![\\w.])${OCTET}(?:\\.${OCTET}){3}(?![\\w]|\\.\\d)`, 'g');
const IPV6_CANDIDATE = /(?<![\w:.])[0-9A-Fa-f:.]*:[0-9A-Fa-f:.]*:[0-9A-Fa-f:.]*(?![\w:])/g;
const URL_RE = /\b(?:https?:\/\/|www\.)[^\s<>"'`]+/gi;

/** Valid IPv6 forms that are far likelier code (`a::b`, `std::map`'s `d::`): too few hex digits, or letters only. */
function plausibleIpv6(candidate: string): boolean {
  const hex = candidate.replace(/[^0-9a-f]/gi, '');
  const groups = candidate.split(':').filter(Boolean).length;
  return hex.length >= 4 && (/\d/.test(candidate) || groups >= 3);
}

const ssnValid = (m: RegExpMatchArray) =>
  m[1] !== '000' && m[1] !== '666' && !m[1]!.startsWith('9') && m[3] !== '00' && m[4] !== '0000';

function trimUrl(s: PiiSpan, text: string): PiiSpan {
  let end = s.end;
  while (end > s.start && /[.,;:!?)\]}]/.test(text[end - 1]!)) end--;
  return { ...s, end };
}

/** The pattern-based detectors: cheap, always run, so overlaps resolve the same whichever types are enabled. */
export function patternSpans(text: string): PiiSpan[] {
  return [
    ...spansOf(text, CARD, 'CREDIT_CARD', (m) => !m[0].startsWith('0') && luhnValid(m[0].replace(/\D/g, ''))),
    ...spansOf(text, EMAIL, 'EMAIL_ADDRESS'),
    ...spansOf(text, SSN, 'US_SSN', ssnValid),
    ...spansOf(text, IPV4, 'IP_ADDRESS'),
    ...spansOf(text, IPV6_CANDIDATE, 'IP_ADDRESS', (m) => plausibleIpv6(m[0]) && isIPv6(m[0].replace(/\.$/, ''))).map(
      (s) => (text[s.end - 1] === '.' ? { ...s, end: s.end - 1 } : s),
    ),
    ...spansOf(text, URL_RE, 'URL').map((s) => trimUrl(s, text)),
  ];
}
