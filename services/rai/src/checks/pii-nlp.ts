import * as chrono from 'chrono-node';
import { parsePhoneNumberFromString, type CountryCode } from 'libphonenumber-js';

import { entitySpans } from './pii-entities';
import type { PiiSpan, PiiType } from './pii-patterns';
import { taggedSpans, type Weights } from './pii/ner-tagger';
import { NER_WEIGHTS } from './pii/ner-weights';

/**
 * Stretches that may hold a phone number: an optional `+` or `00` country prefix, digits in groups split by spaces,
 * dots, dashes or brackets (`+44 (0)20 7946 0958`, `(020) 7946 0958`, `06.12.34.56.78`). libphonenumber reads only
 * these, which keeps long texts fast.
 */
const PHONE_CANDIDATE = /(?<![\w+./:-])(?:\+|00)?\(?\d[\d \t()./-]{5,24}\d(?![\w]|[.,-]\d)/g;
const DATE_HINT =
  /\d|\b(?:jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]*\b|\b(?:mon|tues?|wed(?:nes)?|thu(?:rs)?|fri|sat(?:ur)?|sun)(?:day)?\b|\b(?:today|tomorrow|yesterday|tonight|noon|midnight|ago|next|last|weekend|morning|afternoon|evening|night)\b/i;

/** Shapes of other types that libphonenumber need not be asked about: dates, dotted addresses, times, versions. */
const NOT_PHONE =
  /^\d{4}[-/.]\d{1,2}[-/.]\d{1,2}$|^\d{1,2}[-/.]\d{1,2}[-/.]\d{2,4}$|^\d{1,3}(?:\.\d{1,3}){3}$|^\d{3}-\d{2}-\d{4}$|^\d{1,2}:\d{2}|^[1-9]\d{0,2}(?:\.\d{1,3}){1,3}$/;
/** Regions whose national formats are tried for a number written without a country prefix. */
const DEFAULT_REGIONS: CountryCode[] = [
  'US',
  'GB',
  'DE',
  'FR',
  'IN',
  'BR',
  'ES',
  'IT',
  'NL',
  'AU',
  'CA',
  'MX',
  'JP',
  'CN',
  'IE',
  'ZA',
  'NG',
  'PH',
];
/** Words that announce a phone number: then any 7–15 digits written as a number are one. */
const PHONE_CUE =
  /(?:\b(?:call|calls|calling|phone|ph|tel|telephone|mobile|mob|cell|fax|whatsapp|text|txt|sms|ring|dial|number|no|contact|reach|hotline|helpline)\b|☎|📞)[\s.:#-]*(?:(?:me|us|him|her|them|on|at|is|number|no)\b[\s.:#-]*){0,3}$/i;
/** A national number with its trunk `0` and at least two groups: `020 7946 0958`, `06.12.34.56.78`. */
const TRUNK_SHAPE = /^\(?0\d{1,5}\)?(?:[ ./-]+\(?\d{2,5}\)?){1,4}$/;

function phoneAt(candidate: string, before: string): boolean {
  const digits = candidate.replace(/\D/g, '').length;
  if (digits < 7 || digits > 15 || NOT_PHONE.test(candidate.replace(/\s*([-/.:])\s*/g, '$1'))) return false;
  if (
    /[$€£¥]\s*$|\bv(?:ersion)?\s*$|#\s*$|\b(?:order|invoice|ref|reference|id|account|acct|ticket|tracking|serial)\b[\s.:#-]*(?:no\.?|number)?[\s.:#-]*$/i.test(
      before,
    )
  )
    return false;
  // runs of one-digit groups ("1 2 3 4 5 6 7") are lists or scores, not numbers
  if ((candidate.match(/(?:^|\D)\d(?=\D|$)/g) ?? []).length > 2) return false;
  const intl = candidate.startsWith('00') ? `+${candidate.slice(2)}` : candidate;
  if (intl.startsWith('+')) {
    const n = parsePhoneNumberFromString(intl.replace(/\(0\)\s*/, ''));
    return n !== undefined && (n.isValid() || (digits >= 8 && n.isPossible()));
  }
  if ((digits >= 8 && digits <= 12 && TRUNK_SHAPE.test(candidate)) || PHONE_CUE.test(before)) return true;
  // a bare run of digits is a phone number only with a cue, or when long enough to hold an area code
  if (/^\d+$/.test(candidate) && digits < 10) return false;
  return DEFAULT_REGIONS.some((r) => parsePhoneNumberFromString(candidate, r)?.isValid());
}

/** Phone numbers: international forms of any region, national forms of the default regions, trunk-prefixed groups, or digits after a phone word. */
function phones(text: string): PiiSpan[] {
  const out: PiiSpan[] = [];
  for (const m of text.matchAll(PHONE_CANDIDATE)) {
    const candidate = m[0].trim();
    if (phoneAt(candidate, text.slice(Math.max(0, m.index - 30), m.index)))
      out.push({ type: 'PHONE_NUMBER', start: m.index, end: m.index + candidate.length });
  }
  return out;
}

/**
 * Forms chrono misses: day.month.year with dots (`17.5.2020`), a part of a day (`this morning`, `yesterday evening`),
 * and a year or decade after a preposition of time (`in 2019`, `since 1998`, `in the 1990s`).
 */
const EXTRA_DATES = [
  /\b(?:0?[1-9]|[12]\d|3[01])\.(?:0?[1-9]|1[0-2])\.(?:19|20)?\d{2}\b(?!\.\d)/g,
  /\b(?:this|tomorrow|yesterday|last|every|sunday|monday|tuesday|wednesday|thursday|friday|saturday)\s+(?:morning|afternoon|evening|night)\b/gi,
  /(?<=\b(?:in|since|from|until|till|by|before|after|during|of)\s+(?:the\s+)?)(?:early\s+|late\s+|mid-?)?(?:19|20)\d{2}s?\b(?![-./:]\d)/gi,
];

/**
 * DATE_TIME, Presidio-style: absolute dates and times in any common notation, weekdays, months, relative days
 * ("next friday", "3 days ago", "tonight", "this morning") and years named as a time ("in 2019"). Bare numbers and
 * durations alone ("3 weeks") are not dates.
 */
function dates(text: string): PiiSpan[] {
  if (!DATE_HINT.test(text)) return [];
  const out: PiiSpan[] = chrono
    .parse(text)
    .filter((r) => /[A-Za-z]|[-/:]/.test(r.text) && !/^(?:right )?now$/i.test(r.text))
    .map((r) => ({ type: 'DATE_TIME', start: r.index, end: r.index + r.text.length }));
  for (const re of EXTRA_DATES)
    for (const m of text.matchAll(re)) out.push({ type: 'DATE_TIME', start: m.index, end: m.index + m[0].length });
  return out;
}

const WEIGHTS: Weights = new Map(NER_WEIGHTS);

/** People and places: the gazetteer and context rules, plus the trained tagger's spans where the rules found none. */
function peopleAndPlaces(text: string, want: { person: boolean; location: boolean }): PiiSpan[] {
  const rules = entitySpans(text, want);
  const tagged = taggedSpans(WEIGHTS, text).filter(
    (s) =>
      (s.type === 'PERSON' ? want.person : want.location) && !rules.some((r) => s.start < r.end && r.start < s.end),
  );
  return [...rules, ...tagged];
}

/** The library-based detectors, run only for the types the policy enables (they cost more than the patterns). */
export function nlpSpans(text: string, enabled: Set<PiiType>): PiiSpan[] {
  const person = enabled.has('PERSON');
  const location = enabled.has('LOCATION');
  return [
    ...(enabled.has('PHONE_NUMBER') ? phones(text) : []),
    ...(enabled.has('DATE_TIME') ? dates(text) : []),
    ...(person || location ? peopleAndPlaces(text, { person, location }) : []),
  ];
}
