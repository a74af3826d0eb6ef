import type { Finding } from './check.types';
import { nlpSpans } from './pii-nlp';
import { patternSpans, PII_TYPES, type PiiSpan, type PiiType } from './pii-patterns';

export type PiiAction = 'disabled' | 'redact' | 'block';

/** Specific formats win over broad ones when two detectors claim the same characters. */
const RANK: Record<PiiType, number> = {
  CREDIT_CARD: 0,
  US_SSN: 1,
  EMAIL_ADDRESS: 2,
  URL: 3,
  IP_ADDRESS: 4,
  PHONE_NUMBER: 5,
  DATE_TIME: 6,
  PERSON: 7,
  LOCATION: 8,
};

/** Keeps, of overlapping spans, the most specific type (then the longest); the others are dropped. */
export function resolveOverlaps(spans: PiiSpan[]): PiiSpan[] {
  const ordered = [...spans].sort(
    (a, b) => RANK[a.type] - RANK[b.type] || b.end - b.start - (a.end - a.start) || a.start - b.start,
  );
  const kept: PiiSpan[] = [];
  for (const s of ordered) if (!kept.some((k) => s.start < k.end && k.start < s.end)) kept.push(s);
  return kept.sort((a, b) => a.start - b.start);
}

/** PII by type: one finding per enabled type found, redacting to `<TYPE>` or blocking per the policy. */
export function piiFindings(text: string, types: Partial<Record<PiiType, PiiAction>>): Finding[] {
  const enabled = new Set(PII_TYPES.filter((t) => (types[t] ?? 'disabled') !== 'disabled'));
  if (enabled.size === 0) return [];
  const spans = resolveOverlaps([...patternSpans(text), ...nlpSpans(text, enabled)]).filter((s) => enabled.has(s.type));
  const findings: Finding[] = [];
  for (const type of PII_TYPES) {
    const own = spans.filter((s) => s.type === type);
    if (own.length === 0) continue;
    const action = types[type] === 'block' ? 'block' : 'redact';
    findings.push({
      check: 'pii',
      action,
      detail: `${type} found (${own.length})`,
      spans: own.map((s) => ({ start: s.start, end: s.end, replacement: `<${type}>` })),
    });
  }
  return findings;
}
