// Generated from inference.schemas.ts by `pnpm schemas:types` (scripts/schema-types.cjs): edit the schemas, not this file.

import type { ToolCallRecord } from '../tools/tool-call.schemas.types';

export interface ChatBody {
  /**
   * The agent id: its digits as a string, or a JSON integer; any other value names no agent (404).
   */
  agent_id: string | number;
  session_id: string;
  message: string;
  /**
   * Values for {{name}} placeholders: an object of name → value, a list of {name, value} items, or the JSON text of either.
   */
  system_prompt_variables?:
    | {
        /**
         * Unknown Property
         */
        [x: string]: unknown;
      }
    | {
        name?: string;
        key?: string;
        value?: unknown;
        /**
         * Unknown Property
         */
        [x: string]: unknown;
      }[]
    | string
    | null;
}

export interface ChatResponse {
  response: string;
  session_id: string;
  agent_id: string;
}

export interface SessionMessage {
  id: string;
  session_id: string;
  agent_id: string;
  role: 'user' | 'assistant';
  content: string;
  created_at: string;
  usage: Usage | null;
  /**
   * The tool calls made while answering (assistant messages; empty otherwise)
   */
  tool_calls: ToolCallRecord[];
  /**
   * What features found on the turn (assistant messages); absent when nothing was checked
   */
  findings?: TurnFinding[];
}

export interface SessionMessages {
  total: number;
  messages: SessionMessage[];
}

export interface SessionMessagesQuery {
  /**
   * Items to skip
   */
  skip: number;
  /**
   * Items to return at most
   */
  limit: number;
  agent_id?: string;
}

export interface SessionPath {
  session_id: string;
}

export interface TurnFinding {
  feature: string;
  /**
   * Unknown Property
   */
  [x: string]: unknown;
}

export interface Usage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
}
