/** One thing a check found. `score` is present for scored checks (toxicity, prompt injection). */
export interface Violation {
  check: string;
  score?: number;
  detail: string;
}

/** The answer of POST /v1/rai/inference. */
export interface Evaluation {
  allowed: boolean;
  action: 'allow' | 'redact' | 'block';
  /** The text with every redaction applied. */
  text: string;
  violations: Violation[];
}

export interface InferenceInput {
  policy_id: string;
  text: string;
  direction: 'input' | 'output';
}
