/** What one check found. `spans` are the parts of the text to replace when the action is `redact`. */
export interface Finding {
  check: string;
  detail: string;
  action: 'block' | 'redact';
  score?: number;
  spans?: Span[];
}

/** A part of the text [start, end) and what replaces it on redaction. */
export interface Span {
  start: number;
  end: number;
  replacement: string;
}

/** A term of the keywords or custom PII lists, strings normalised to this form. */
export interface TermRule {
  label: string;
  replacement: string;
  action: 'block' | 'redact';
}

/** Rounds a score to 3 decimals, so thresholds compare against what the client sees. */
export const roundScore = (x: number): number => Math.round(x * 1000) / 1000;

/** 1 − Π(1 − wᵢ): independent signals combined; never above 1. */
export const combine = (weights: number[]): number =>
  roundScore(1 - weights.reduce((p, w) => p * (1 - Math.min(Math.max(w, 0), 1)), 1));
