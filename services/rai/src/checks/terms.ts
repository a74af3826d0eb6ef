import type { Finding, Span, TermRule } from './check.types';
import { fold, foldTerm, type Folded } from './fold';

/** A literal string as a regular-expression source (its special characters escaped). */
export const escapeRegExp = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
/** What may stand between the letters of an obfuscated word: `b.a.d`, `b-a-d`, `b*d`. */
const SEPARATOR = "[.\\-_*~|'`]?";

/**
 * A whole-word, case- and accent-insensitive pattern of a term over folded text: each letter may repeat ("baaad") and
 * be split from the next by one separator sign ("b.a.d"); spaces in the term match any run of non-letters.
 */
export function termPattern(term: string): RegExp | null {
  const folded = foldTerm(term);
  if (!folded) return null;
  const words = folded.split(' ').map((w) => [...w].map((c) => `${escapeRegExp(c)}+`).join(SEPARATOR));
  return new RegExp(`(?<![\\p{L}\\p{N}])${words.join('[^\\p{L}\\p{N}]+')}(?![\\p{L}\\p{N}])`, 'gu');
}

/** Where `rule` occurs in the folded text, as spans of the original text. */
export function findTerm(folded: Folded, rule: TermRule): Span[] {
  const re = termPattern(rule.label);
  if (!re) return [];
  const spans: Span[] = [];
  for (const m of folded.text.matchAll(re)) {
    const start = m.index;
    const end = start + m[0].length;
    spans.push({ start: folded.starts[start]!, end: folded.ends[end - 1]!, replacement: rule.replacement });
  }
  return spans;
}

/** One finding per rule that occurs: keywords and custom PII alike. */
export function termFindings(text: string, rules: TermRule[], check: string, what: string): Finding[] {
  if (rules.length === 0) return [];
  const folded = fold(text);
  const findings: Finding[] = [];
  for (const rule of rules) {
    const spans = findTerm(folded, rule);
    if (spans.length > 0) findings.push({ check, action: rule.action, detail: `${what} "${rule.label}" found`, spans });
  }
  return findings;
}
