/** What passes between a model and the tools it may call: owned by tools, used by inference (never the reverse). */

/** A function call the model asked for. `arguments` is JSON text, as the model wrote it. */
export interface ToolCall {
  id: string;
  name: string;
  arguments: string;
}

/** A function offered to the model. */
export interface ModelTool {
  name: string;
  description: string;
  parameters: Record<string, unknown>;
}

export type { ToolCallRecord } from './tool-call.schemas.types';
