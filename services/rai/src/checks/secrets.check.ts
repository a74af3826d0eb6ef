import type { Finding, Span } from './check.types';
import { SECRET_RULES } from './secret-rules';

export const SECRET_REPLACEMENT = '<SECRET>';

const overlaps = (a: Span, b: Span) => a.start < b.end && b.start < a.end;

/**
 * Secrets in the text: one finding per rule that matched, masked (redact) or blocking per the policy. A match inside
 * one an earlier (more specific) rule already made is not counted again.
 */
export function secretFindings(text: string, action: 'mask' | 'block'): Finding[] {
  const findings: Finding[] = [];
  const taken: Span[] = [];
  for (const rule of SECRET_RULES) {
    const spans: Span[] = [...text.matchAll(rule.pattern)]
      .filter((m) => rule.accept?.(m[0]) ?? true)
      .map((m) => ({ start: m.index, end: m.index + m[0].length, replacement: SECRET_REPLACEMENT }))
      .filter((s) => !taken.some((t) => overlaps(s, t)));
    if (spans.length === 0) continue;
    taken.push(...spans);
    findings.push({
      check: 'secrets',
      action: action === 'block' ? 'block' : 'redact',
      detail: `${rule.id} found`,
      spans,
    });
  }
  return findings;
}
