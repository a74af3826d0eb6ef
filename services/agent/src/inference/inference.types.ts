import type { AgentRecord, Owner } from '../agents/agent.types';
import type { ModelTool, ToolCall, ToolCallRecord } from '../tools/tool-call.types';
import type { VariableMap } from './prompt-variables';

export type { Owner };
export type { ModelTool, ToolCall, ToolCallRecord };

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

/** Token counts of one model call, in OpenAI's names (Anthropic's input/output tokens are mapped onto them). */
export interface Usage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
}

/** Body of POST /v3/inference/chat/ after validation. `user_id` is never read: the caller's key decides. */
export interface ChatInput {
  agent_id: string | number;
  session_id: string;
  message: string;
  /** Either form the client sent, already turned into one name → value map by validation. */
  system_prompt_variables?: VariableMap | null;
}

export interface ChatResult {
  response: string;
  session_id: string;
  agent_id: string;
}

/** What the model answered. */
export interface ModelReply {
  text: string;
  usage: Usage | null;
  /** Present (non-empty) when the model asks for tool calls instead of, or beside, its text. */
  toolCalls?: ToolCall[];
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
  history: ChatMessage[];
  /** Set once the model has answered, before the afterModel hooks; set by a beforeModel hook, the model is not called. */
  reply?: ModelReply;
  /** What features found on this turn (e.g. RAI violations), stored with the turn. */
  findings?: TurnFinding[];
}

/** Something a feature found on a turn, named by the feature; stored with the turn's reply. */
export interface TurnFinding {
  feature: string;
  [key: string]: unknown;
}

/** A stored message as the session listing shows it. */
export interface StoredMessage {
  id: string;
  session_id: string;
  agent_id: string;
  role: 'user' | 'assistant';
  content: string;
  created_at: string;
  usage: Usage | null;
  /** The tool calls made while answering (assistant messages; empty otherwise). */
  tool_calls: ToolCallRecord[];
  /** What features found on the turn (assistant messages); absent when nothing was checked. */
  findings?: TurnFinding[];
}
