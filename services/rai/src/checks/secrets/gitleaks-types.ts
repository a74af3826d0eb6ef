/** The shape of the rule table generated from gitleaks' rule set (see gitleaks-rules.generated.ts). */
export interface GitleaksAllowlist {
  /** What the regexes test: the secret (default), the whole match, or the line holding the match. */
  target: 'secret' | 'match' | 'line';
  regexes: { source: string; flags: string }[];
  /** Lower-case words: a secret containing one of them is not reported. */
  stopwords: string[];
}

export interface GitleaksRuleSpec {
  id: string;
  source: string;
  flags: string;
  /** Lower-case substrings, at least one of which must occur in the text before the regex is tried. */
  keywords: string[];
  /** Least Shannon entropy (bits per character) of the secret. */
  entropy?: number;
  /** The capture group holding the secret (else the first non-empty group, else the whole match). */
  secretGroup?: number;
  allowlists: GitleaksAllowlist[];
}

export interface GitleaksTable {
  globalAllowlist: GitleaksAllowlist | null;
  rules: GitleaksRuleSpec[];
}
