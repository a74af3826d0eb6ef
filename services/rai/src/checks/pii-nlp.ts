import * as chrono from 'chrono-node';
import { parsePhoneNumberFromString } from 'libphonenumber-js';

import { entitySpans } from './pii-entities';
import type { PiiSpan, PiiType } from './pii-patterns';

/** Stretches that may hold a phone number: libphonenumber reads only these, which keeps long texts fast. */
const PHONE_CANDIDATE = /(?<![\w+])(?:\+\d{1,3}[\s.-]?)?\(?\d[\d\s().-]{5,22}\d\b/g;
const DATE_HINT =
  /\d|\b(?:jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]*\b|\b(?:mon|tues?|wed(?:nes)?|thu(?:rs)?|fri|sat(?:ur)?|sun)(?:day)?\b|\b(?:today|tomorrow|yesterday|tonight|noon|midnight|ago|next|last|weekend)\b/i;

/** Shapes of other types (ISO dates, dotted addresses) that libphonenumber need not be asked about. */
const NOT_PHONE = /^\d{4}-\d{2}-\d{2}$|^\d{1,3}(?:\.\d{1,3}){3}$/;

/** Phone numbers that libphonenumber finds valid (national formats of the default country, or international). */
function phones(text: string): PiiSpan[] {
  const out: PiiSpan[] = [];
  for (const m of text.matchAll(PHONE_CANDIDATE)) {
    const digits = m[0].replace(/\D/g, '').length;
    if (digits < 7 || digits > 15 || NOT_PHONE.test(m[0])) continue;
    if (parsePhoneNumberFromString(m[0], 'US')?.isValid())
      out.push({ type: 'PHONE_NUMBER', start: m.index, end: m.index + m[0].length });
  }
  return out;
}

/** Dates and times as chrono reads them ("2024-03-05 at 10:30", "next friday"); bare numbers are not dates. */
function dates(text: string): PiiSpan[] {
  if (!DATE_HINT.test(text)) return [];
  return chrono
    .parse(text)
    .filter((r) => /[A-Za-z]|[-/:]/.test(r.text))
    .map((r) => ({ type: 'DATE_TIME', start: r.index, end: r.index + r.text.length }));
}

/** The library-based detectors, run only for the types the policy enables (they cost more than the patterns). */
export function nlpSpans(text: string, enabled: Set<PiiType>): PiiSpan[] {
  const person = enabled.has('PERSON');
  const location = enabled.has('LOCATION');
  return [
    ...(enabled.has('PHONE_NUMBER') ? phones(text) : []),
    ...(enabled.has('DATE_TIME') ? dates(text) : []),
    ...(person || location ? entitySpans(text, { person, location }) : []),
  ];
}
