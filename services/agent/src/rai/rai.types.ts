/** One thing the RAI service found in a text. */
export interface RaiViolation {
  check: string;
  score?: number;
  detail: string;
}

/** The RAI service's verdict on one text (contract §6). */
export interface RaiVerdict {
  allowed: boolean;
  action: 'allow' | 'redact' | 'block';
  /** The text with the policy's redactions applied. */
  text: string;
  violations: RaiViolation[];
}

/** What a turn records of one RAI check: the direction, the verdict's action and what was found (no text). */
export interface RaiTurnRecord {
  direction: 'input' | 'output';
  policy_id: string;
  action: RaiVerdict['action'];
  violations: RaiViolation[];
}

/** Where the RAI service answers and how this service authenticates to it. */
export interface RaiTarget {
  baseUrl: string;
  /** The internal on-behalf-of secret the RAI service shares; null: RAI checks cannot run (fail closed). */
  secret: string | null;
  timeoutMs?: number;
}
