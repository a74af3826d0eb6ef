import type { Finding, Span } from './check.types';
import { SECRET_RULES, type SecretRule } from './secret-rules';
import { GITLEAKS_RULES, gitleaksHits, type SecretHit } from './secrets/gitleaks';
import { isIdentifierOrHash, isPlaceholder, lineAround } from './secrets/lookalike';

export const SECRET_REPLACEMENT = '<SECRET>';

const overlaps = (a: SecretHit, b: SecretHit) => a.start < b.end && b.start < a.end;

interface Detector {
  id: string;
  find: (text: string, lower: string) => SecretHit[];
}

const ours = (rule: SecretRule): Detector => ({
  id: rule.id,
  find: (text, lower) => {
    const hits: SecretHit[] = [];
    if (rule.keywords && !rule.keywords.some((k) => lower.includes(k))) return hits;
    const groups = rule.group === undefined ? [] : Array.isArray(rule.group) ? rule.group : [rule.group];
    for (const m of text.matchAll(rule.pattern)) {
      const group = groups.length === 0 ? 0 : groups.find((g) => m[g] !== undefined);
      if (group === undefined) continue;
      if (rule.context && !rule.context(m[0], text.slice(Math.max(0, m.index - 8), m.index))) continue;
      const secret = m[group];
      if (!secret || (!rule.ownPlaceholderTest && isPlaceholder(secret)) || !(rule.accept?.(secret, group) ?? true))
        continue;
      const [start, end] = group ? m.indices![group]! : [m.index, m.index + m[0].length];
      // A hex digest on a line that speaks of hashes, commits or checksums is not a secret (`deploy_key_sha1: …`).
      if (isIdentifierOrHash(secret, lineAround(text, start, end))) continue;
      hits.push({ start, end });
    }
    return hits;
  },
});

const GENERIC_OURS = new Set(['password', 'generic_secret']);

/**
 * The order decides which rule names a secret several rules find: our specific rules (stable names for the common
 * providers), then gitleaks' specific rules, then gitleaks' generic rule, then our generic assignment rule.
 */
const DETECTORS: Detector[] = [
  ...SECRET_RULES.filter((r) => !GENERIC_OURS.has(r.id)).map(ours),
  ...GITLEAKS_RULES.filter((r) => !r.generic).map((r) => ({
    id: r.id,
    find: (t: string, l: string) => gitleaksHits(r, t, l),
  })),
  ...GITLEAKS_RULES.filter((r) => r.generic).map((r) => ({
    id: r.id,
    find: (t: string, l: string) => gitleaksHits(r, t, l),
  })),
  ...SECRET_RULES.filter((r) => GENERIC_OURS.has(r.id)).map(ours),
];

/**
 * Secrets in the text: one finding per rule that matched, masked (redact) or blocking per the policy. A match inside
 * one an earlier (more specific) rule already made is not counted again. Only the secret itself is masked, and the
 * detail names the rule, never the value.
 */
export function secretFindings(text: string, action: 'mask' | 'block'): Finding[] {
  const findings: Finding[] = [];
  const taken: SecretHit[] = [];
  const lower = text.toLowerCase();
  for (const detector of DETECTORS) {
    const hits = detector.find(text, lower).filter((s) => !taken.some((t) => overlaps(s, t)));
    if (hits.length === 0) continue;
    taken.push(...hits);
    const spans: Span[] = hits.map((h) => ({ ...h, replacement: SECRET_REPLACEMENT }));
    findings.push({
      check: 'secrets',
      action: action === 'block' ? 'block' : 'redact',
      detail: `${detector.id} found`,
      spans,
    });
  }
  return findings;
}
