// Generated from completion.schemas.ts by `pnpm schemas:types` (scripts/schema-types.cjs): edit the schemas, not this file.

import type { Usage } from '../inference/inference.schemas.types';

export interface ChatCompletion {
  /**
   * chatcmpl-…
   */
  id: string;
  object: 'chat.completion';
  /**
   * Unix seconds
   */
  created: number;
  /**
   * The request’s model when it named one, else the agent’s
   */
  model: string;
  choices: {
    index: number;
    message: {
      role: 'assistant';
      /**
       * null when the answer is tool calls only
       */
      content: string | null;
      refusal: null;
      /**
       * Calls of the caller’s functions
       */
      tool_calls?: CompletionToolCall[];
    };
    logprobs: null;
    finish_reason: 'stop' | 'length' | 'tool_calls';
  }[];
  /**
   * Tokens of every model call of the turn; 0 when the model was not called
   */
  usage: Usage;
  /**
   * Extra field: the session the turn is stored in
   */
  session_id: string;
}

export interface ChatCompletionChunk {
  id: string;
  object: 'chat.completion.chunk';
  created: number;
  model: string;
  /**
   * One choice; none on the usage chunk
   */
  choices: {
    index: number;
    delta: {
      role?: 'assistant';
      content?: string | null;
      tool_calls?: ToolCallDelta[];
    };
    logprobs: null;
    finish_reason: 'stop' | 'length' | 'tool_calls' | null;
  }[];
  /**
   * With stream_options.include_usage: null, then the totals on the last chunk
   */
  usage?: Usage | null;
}

export interface CompletionBody {
  /**
   * The conversation, oldest first. The last user message is the turn’s message; after it only the tool rounds of this turn may follow (assistant messages with `tool_calls`, then `tool` messages of their results), so the last message is a user or a tool message. System (and developer) messages are added after the agent’s own system prompt for this call; earlier user, assistant and tool messages are this call’s history instead of stored memory.
   */
  messages: CompletionMessage[];
  /**
   * Accepted and echoed in the answer; the agent decides the model it runs on
   */
  model?: string | null;
  /**
   * true: the answer as server-sent `chat.completion.chunk` events
   */
  stream?: boolean | null;
  /**
   * include_usage: a last chunk with empty choices and the usage
   */
  stream_options?: /**
   * include_usage: a last chunk with empty choices and the usage
   */
  {
    include_usage?: boolean | null;
    /**
     * Unknown Property
     */
    [x: string]: unknown;
  } | null;
  /**
   * This call's temperature instead of the agent's
   */
  temperature?: number | null;
  /**
   * This call's top_p instead of the agent's
   */
  top_p?: number | null;
  /**
   * Most tokens of the answer; never more than the agent's own additional_model_params.max_tokens
   */
  max_tokens?: number | null;
  /**
   * Same as max_tokens (OpenAI’s newer name); the smaller wins when both are sent
   */
  max_completion_tokens?: number | null;
  n?: number | null;
  /**
   * Extra field: the session the turn is stored in and MEMORY reads (else the x-session-id header, else a new one: the completion id)
   */
  session_id?: string;
  /**
   * Extra field: values for {{name}} placeholders of the agent’s system prompt, as on chat
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
  /**
   * Accepted and ignored: it names an end user, not a conversation (use session_id)
   */
  user?: string | null;
  /**
   * The caller’s own functions, offered to the model beside the agent’s tools (names must differ from theirs: 422). The agent runs its own tools; when the model asks for the caller’s, the answer carries `tool_calls` with `finish_reason: "tool_calls"`, and the caller continues the conversation with `tool` messages of their results.
   */
  tools?:
    /**
     * The caller’s own functions, offered to the model beside the agent’s tools (names must differ from theirs: 422). The agent runs its own tools; when the model asks for the caller’s, the answer carries `tool_calls` with `finish_reason: "tool_calls"`, and the caller continues the conversation with `tool` messages of their results.
     */
    CompletionTool[] | null;
  /**
   * `auto` (the default): the model decides; `none`: the caller’s functions are not offered; `required` or a named function: the turn’s first model call must call a tool (that one)
   */
  tool_choice?:
    | ('none' | 'auto' | 'required')
    | {
        type: 'function';
        function: {
          name: string;
        };
      }
    | null;
  /**
   * Accepted and ignored
   */
  parallel_tool_calls?: boolean | null;
}

export interface CompletionHeaders {
  /**
   * The session of the turn when the body names none
   */
  'x-session-id'?: string;
}

export interface CompletionMessage {
  role: 'system' | 'developer' | 'user' | 'assistant' | 'tool';
  /**
   * A string, text parts, or null (read as empty)
   */
  content?: string | CompletionTextPart[] | null;
  /**
   * Accepted and ignored
   */
  name?: string | null;
  /**
   * On an assistant message: the calls of the caller’s functions the model asked for (as a previous answer gave them)
   */
  tool_calls?:
    /**
     * On an assistant message: the calls of the caller’s functions the model asked for (as a previous answer gave them)
     */
    CompletionToolCall[] | null;
  /**
   * On a tool message (required there): the call of an earlier assistant message this is the result of
   */
  tool_call_id?: string | null;
}

export interface CompletionPath {
  agent_id: string;
}

export interface CompletionTextPart {
  type: 'text';
  text: string;
}

export interface CompletionTool {
  type: 'function';
  function: {
    name: string;
    description?: string | null;
    /**
     * JSON Schema of the arguments (an object with no properties when absent)
     */
    parameters?: /**
     * JSON Schema of the arguments (an object with no properties when absent)
     */
    {
      /**
       * Unknown Property
       */
      [x: string]: unknown;
    } | null;
    /**
     * Accepted and ignored
     */
    strict?: boolean | null;
    /**
     * Unknown Property
     */
    [x: string]: unknown;
  };
}

export interface CompletionToolCall {
  id: string;
  type: 'function';
  function: {
    name: string;
    /**
     * JSON text, as the model wrote it
     */
    arguments: string;
  };
}

export interface ToolCallDelta {
  index: number;
  id: string;
  type: 'function';
  function: {
    name: string;
    /**
     * JSON text, as the model wrote it
     */
    arguments: string;
  };
}
