import type { AgentRecord, Owner } from '../agents/agent.types';

export type { Owner };

/** One message of a conversation as the model sees it. */
export interface ChatMessage {
  role: 'user' | 'assistant';
  content: string;
}

/** A function call the model asked for. `arguments` is JSON text, as the model wrote it. */
export interface ToolCall {
  id: string;
  name: string;
  arguments: string;
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

/** A function offered to the model. */
export interface ModelTool {
  name: string;
  description: string;
  parameters: Record<string, unknown>;
}

/** One executed tool call, as stored with the turn. */
export interface ToolCallRecord {
  id: string;
  tool_id: string | null;
  name: string;
  arguments: unknown;
  status_code: number | null;
  error: string | null;
  /** What the model was given back (truncated). */
  result: string;
  duration_ms: number;
}

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
  system_prompt_variables?: Record<string, unknown> | null;
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
  /** Set once the model has answered, before the afterModel hooks. */
  reply?: ModelReply;
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
}
