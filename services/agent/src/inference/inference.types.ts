import type { AgentRecord, Owner } from '../agents/agent.types';
import type { ModelTool, ToolCall, ToolCallRecord } from '../tools/tool-call.types';
import type { ChatBody, TurnFinding, Usage } from './inference.schemas.types';
import type { VariableMap } from './prompt-variables';

export type { Owner };
export type { ModelTool, ToolCall, ToolCallRecord };
export type {
  ChatResponse as ChatResult,
  SessionMessage as StoredMessage,
  TurnFinding,
  Usage,
} from './inference.schemas.types';

/**
 * Body of POST /v3/inference/chat/ after validation (`ChatBody`), `user_id` never read: the caller's key decides.
 * Validation's custom step has already turned either form of `system_prompt_variables` into one name → value map,
 * which the schema's description cannot show.
 */
export type ChatInput = Omit<ChatBody, 'system_prompt_variables'> & {
  system_prompt_variables?: VariableMap | null;
  /** What a caller sends beside the message on routes other than chat (never read from a chat body). */
  call?: CallSettings;
};

/**
 * What an OpenAI-protocol caller (POST /v3/inference/{agent_id}/chat/completions) sends beside the turn's message:
 * context for this call only (never stored) and settings over the agent's for this call.
 */
export interface CallSettings {
  /** The request's system messages, in order: added after the agent's own system prompt. */
  system: string[];
  /** The request's earlier turns, oldest first: this call's history instead of stored memory, when any. */
  turns: ModelMessage[];
  /**
   * What follows the turn's user message in the request: the model's earlier requests for the caller's tools and the
   * caller's results of them, sent after the message (the tool rounds of this turn so far).
   */
  continuation?: ModelMessage[];
  /** The caller's own functions, offered beside the agent's tools; a call of one ends the run and goes back. */
  tools?: ModelTool[];
  /** `tool_choice` other than `auto`: on the turn's first model call, a tool call is required (any, or this one). */
  toolChoice?: ToolChoice;
  temperature?: number;
  top_p?: number;
  /** Upper bound of the answer's tokens (at most the agent's own `max_tokens` when it sets one). */
  max_tokens?: number;
}

/** A required tool call: any function, or the one named. */
export type ToolChoice = 'required' | { name: string };

/** Why the model stopped: it answered, it ran out of tokens, or it asks the caller to run tools. */
export type FinishReason = 'stop' | 'length' | 'tool_calls';

/** An answered turn, as the OpenAI-protocol route reports it. */
export interface TurnResult {
  /** The answer the caller gets (after RAI). */
  text: string;
  /** Tokens of the model calls of the turn, summed; null when the model was not called or did not say. */
  usage: Usage | null;
  sessionId: string;
  agentId: string;
  /** The model the agent ran on. */
  model: string;
  /** Calls of the caller's own tools the model asks for (the turn is then not over, and not stored). */
  toolCalls?: ToolCall[];
  finishReason: FinishReason;
}

/** One message of a conversation as the model sees it. */
export interface ChatMessage {
  role: 'user' | 'assistant';
  content: string;
}

/** The model's reply asking for tool calls (with any text it wrote beside them). */
export interface ToolCallMessage {
  role: 'assistant';
  content: string;
  toolCalls: ToolCall[];
}

/** The result of one tool call, fed back to the model. */
export interface ToolResultMessage {
  role: 'tool';
  toolCallId: string;
  name: string;
  content: string;
  isError: boolean;
}

/** Any message of a model call: plain chat, a request for tool calls, or a tool's result. */
export type ModelMessage = ChatMessage | ToolCallMessage | ToolResultMessage;

/** What the model answered. */
export interface ModelReply {
  text: string;
  usage: Usage | null;
  /** Present (non-empty) when the model asks for tool calls instead of, or beside, its text. */
  toolCalls?: ToolCall[];
  /** True when the answer was cut at the token limit (the provider's `length` / `max_tokens` stop). */
  truncated?: boolean;
}

/**
 * The state of one inference call as it passes through the agent's features. Features read and change it:
 * MEMORY fills `history`; later ones (RAI, KNOWLEDGE_BASE) may rewrite `message`, add to `system` or check `reply`.
 */
export interface InferenceContext {
  owner: Owner;
  agent: AgentRecord;
  sessionId: string;
  /** The new user message. */
  message: string;
  /** The composed system prompt, variables substituted. */
  system: string;
  /** Earlier messages sent before the new one, oldest first. */
  history: ModelMessage[];
  /** Set once the model has answered, before the afterModel hooks; set by a beforeModel hook, the model is not called. */
  reply?: ModelReply;
  /** What features found on this turn (e.g. RAI violations), stored with the turn. */
  findings?: TurnFinding[];
  /**
   * Context the caller sent with this call (OpenAI chat completions): system messages and earlier turns. Its turns,
   * when any, are `history` (MEMORY then reads no stored messages); RAI checks all of it as input.
   */
  supplied?: Pick<CallSettings, 'system' | 'turns' | 'continuation'>;
}
