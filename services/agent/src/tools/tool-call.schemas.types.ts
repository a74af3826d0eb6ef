// Generated from tool-call.schemas.ts by `pnpm schemas:types` (scripts/schema-types.cjs): edit the schemas, not this file.

export interface ToolCallRecord {
  id: string;
  tool_id: string | null;
  name: string;
  /**
   * As the model gave them: parsed JSON, or the text when it was not JSON
   */
  arguments?: unknown;
  status_code: number | null;
  error: string | null;
  /**
   * What the model was given back (truncated)
   */
  result: string;
  duration_ms: number;
}
