// Generated from rai.schemas.ts by `pnpm schemas:types` (scripts/schema-types.cjs): edit the schemas, not this file.

export interface RaiVerdict {
  allowed: boolean;
  action: 'allow' | 'redact' | 'block';
  /**
   * The text with the policy's redactions applied.
   */
  text: string;
  violations: RaiViolation[];
}

export interface RaiViolation {
  check: string;
  score?: number;
  detail: string;
}
