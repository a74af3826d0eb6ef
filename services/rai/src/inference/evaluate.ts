import type { Finding, Span, TermRule } from '../checks/check.types';
import { injectionFindings } from '../checks/injection.check';
import { piiFindings } from '../checks/pii.check';
import { secretFindings } from '../checks/secrets.check';
import { termFindings } from '../checks/terms';
import { allowedTopicFindings, bannedTopicFindings } from '../checks/topics.check';
import { toxicityFindings } from '../checks/toxicity.check';
import type { PolicyRules, TermEntry } from '../policies/policy.types';
import type { Evaluation, Violation } from './inference.types';

const asRule = (entry: TermEntry, action: 'block' | 'redact'): TermRule =>
  typeof entry === 'string' ? { label: entry, replacement: '[REDACTED]', action } : entry;

/** Every enabled check of the policy, run on the text. */
export function findingsFor(rules: PolicyRules, text: string): Finding[] {
  const f: Finding[] = [];
  if (rules.keywords.enabled)
    f.push(
      ...termFindings(
        text,
        rules.keywords.keywords.map((k) => asRule(k, 'block')),
        'keywords',
        'keyword',
      ),
    );
  if (rules.banned_topics.enabled) f.push(...bannedTopicFindings(text, rules.banned_topics.topics));
  if (rules.allowed_topics.enabled) f.push(...allowedTopicFindings(text, rules.allowed_topics.topics));
  if (rules.toxicity_check.enabled) f.push(...toxicityFindings(text, rules.toxicity_check.threshold));
  if (rules.prompt_injection.enabled) f.push(...injectionFindings(text, rules.prompt_injection.threshold));
  if (rules.secrets_detection.enabled) f.push(...secretFindings(text, rules.secrets_detection.action));
  if (rules.pii_detection.enabled) {
    f.push(...piiFindings(text, rules.pii_detection.types));
    f.push(
      ...termFindings(
        text,
        rules.pii_detection.custom_pii.map((c) => asRule(c, 'redact')),
        'custom_pii',
        'custom PII',
      ),
    );
  }
  return f;
}

/** Replaces the spans in the text; overlapping spans merge into one (the first one's replacement). */
export function redact(text: string, spans: Span[]): string {
  const ordered = [...spans].sort((a, b) => a.start - b.start || b.end - a.end);
  const merged: Span[] = [];
  for (const s of ordered) {
    const last = merged.at(-1);
    if (last && s.start < last.end) last.end = Math.max(last.end, s.end);
    else merged.push({ ...s });
  }
  let out = '';
  let at = 0;
  for (const s of merged) {
    out += text.slice(at, s.start) + s.replacement;
    at = s.end;
  }
  return out + text.slice(at);
}

/**
 * The verdict: any blocking finding blocks; otherwise any redaction redacts; otherwise the text is allowed. The
 * returned text has every redaction applied (also when blocked, so a caller may log it).
 */
export function evaluate(rules: PolicyRules, text: string): Evaluation {
  return verdict(text, findingsFor(rules, text));
}

/** The verdict of a text from all findings (the local checks' and, when asked, the LLM judge's). */
export function verdict(text: string, findings: Finding[]): Evaluation {
  const spans = findings.flatMap((f) => f.spans ?? []);
  const action = findings.some((f) => f.action === 'block') ? 'block' : findings.length > 0 ? 'redact' : 'allow';
  const violations: Violation[] = findings.map((f) => ({
    check: f.check,
    ...(f.score === undefined ? {} : { score: f.score }),
    detail: f.detail,
  }));
  return { allowed: action !== 'block', action, text: spans.length > 0 ? redact(text, spans) : text, violations };
}
