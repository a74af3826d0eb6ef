/**
 * gitleaks' rules (the generated table) run the way gitleaks runs them: a cheap keyword test on the lower-cased text
 * before each regex, the secret taken from the rule's capture group, the rule's entropy threshold, gitleaks' rule
 * that a `generic-*` secret must hold a digit, and the rule's and the global allowlists (regexes on the secret, the
 * match or the line; stopwords). Our look-alike suppression comes on top.
 */
import { GITLEAKS_TABLE } from './gitleaks-rules.generated';
import type { GitleaksAllowlist, GitleaksRuleSpec } from './gitleaks-types';
import { isIdentifierOrHash, isPlaceholder, lineAround, shannonEntropy, wordsIdentifier } from './lookalike';

interface CompiledAllowlist {
  target: GitleaksAllowlist['target'];
  regexes: RegExp[];
  stopwords: string[];
}

interface CompiledRule {
  id: string;
  pattern: RegExp;
  keywords: string[];
  entropy?: number;
  secretGroup?: number;
  generic: boolean;
  /** The pattern began with gitleaks' lazy `[\w.-]{0,50}?` lead, stripped for speed (see `compile`). */
  lead: boolean;
  allowlists: CompiledAllowlist[];
}

/** A secret a rule found: [start, end) of the secret itself (what gets masked). */
export interface SecretHit {
  start: number;
  end: number;
}

const compileAllowlist = (a: GitleaksAllowlist): CompiledAllowlist => ({
  target: a.target,
  regexes: a.regexes.map((r) => new RegExp(r.source, r.flags)),
  stopwords: a.stopwords,
});

/**
 * 100 of gitleaks' patterns open with a lazy `[\w.-]{0,50}?` before their keyword. It never decides whether a match
 * exists or what the secret is, only where the match starts, yet a backtracking engine pays for it at every position
 * (≈ 50× the work). It is stripped, and the match start is re-extended over up to 50 such characters for the
 * allowlists that look at the whole match.
 */
const LEAD = '[\\w.-]{0,50}?';

const compile = (r: GitleaksRuleSpec): CompiledRule => ({
  id: r.id,
  pattern: new RegExp(r.source.startsWith(LEAD) ? r.source.slice(LEAD.length) : r.source, `${r.flags}gd`),
  lead: r.source.startsWith(LEAD),
  keywords: r.keywords,
  entropy: r.entropy,
  secretGroup: r.secretGroup,
  generic: r.id.startsWith('generic'),
  allowlists: r.allowlists.map(compileAllowlist),
});

export const GITLEAKS_RULES: readonly CompiledRule[] = GITLEAKS_TABLE.rules.map(compile);
const GLOBAL_ALLOWLIST = GITLEAKS_TABLE.globalAllowlist ? compileAllowlist(GITLEAKS_TABLE.globalAllowlist) : null;

function allowed(a: CompiledAllowlist, secret: string, match: string, line: string): boolean {
  const target = a.target === 'match' ? match : a.target === 'line' ? line : secret;
  if (a.regexes.some((re) => re.test(target))) return true;
  const lower = secret.toLowerCase();
  return a.stopwords.some((w) => lower.includes(w));
}

/** The secrets one gitleaks rule finds in `text` (`lower` is `text.toLowerCase()`, shared across rules). */
export function gitleaksHits(rule: CompiledRule, text: string, lower: string): SecretHit[] {
  if (rule.keywords.length > 0 && !rule.keywords.some((k) => lower.includes(k))) return [];
  const hits: SecretHit[] = [];
  for (const m of text.matchAll(rule.pattern)) {
    if (m[0].length === 0) continue;
    // gitleaks: the rule's secret group, else the first group that matched, else the whole match.
    const group =
      rule.secretGroup ??
      Math.max(
        0,
        m.findIndex((g, i) => i > 0 && !!g),
      );
    const secret = m[group] ?? m[0];
    const [start, end] = m.indices?.[group] ?? [m.index, m.index + m[0].length];
    if (rule.entropy !== undefined && shannonEntropy(secret) < rule.entropy) continue;
    if (rule.generic && !/\d/.test(secret)) continue;
    const line = lineAround(text, start, end);
    let from = m.index;
    if (rule.lead) while (from > 0 && m.index - from < 50 && /[\w.-]/.test(text[from - 1]!)) from--;
    // Allowlists on the whole match look at the key's name; a secret of thousands of characters is cut at 256 so
    // that their lazy patterns stay linear.
    const match = text.slice(from, Math.min(m.index + m[0].length, start + 256));
    if (rule.allowlists.some((a) => allowed(a, secret, match, line))) continue;
    if (GLOBAL_ALLOWLIST && allowed(GLOBAL_ALLOWLIST, secret, match, line)) continue;
    if (isPlaceholder(secret)) continue;
    if (rule.generic && (isIdentifierOrHash(secret, line) || wordsIdentifier(secret))) continue;
    hits.push({ start, end });
  }
  return hits;
}
