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
export type ChatInput = Omit<ChatBody, 'system_prompt_variables'> & { system_prompt_variables?: VariableMap | null };

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
