import type { AgentRecord, Owner } from '../agents/agent.types';

export type { Owner };

/** One message of a conversation as the model sees it. */
export interface ChatMessage {
  role: 'user' | 'assistant';
  content: string;
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
}
