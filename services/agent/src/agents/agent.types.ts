import type { Owner } from '@platform/db';

/** A feature switched on for an agent (MEMORY, RAI, KNOWLEDGE_BASE, ...). */
export interface Feature {
  type: string;
  config: Record<string, unknown>;
  priority: number;
}

/** Fields a client may set on an agent (general or single-task). */
export interface AgentInput {
  name: string;
  description?: string | null;
  system_prompt?: string | null;
  features?: Feature[];
  tools?: string[];
  llm_credential_id?: string | null;
  provider_id?: string | null;
  model?: string | null;
  top_p?: number | null;
  temperature?: number | null;
  response_format?: Record<string, unknown> | null;
  agent_goal?: string | null;
  agent_context?: string | null;
  agent_output?: string | null;
  max_iterations?: number | null;
  store_messages?: boolean | null;
  tool_configs?: unknown;
  additional_model_params?: Record<string, unknown> | null;
  // single-task template fields
  agent_role?: string | null;
  agent_instructions?: string | null;
  examples?: string | null;
  tool?: string | null;
  tool_usage_description?: string | null;
  template_type?: string | null;
  version?: string | null;
}

export type AgentKind = 'agent' | 'single_task';

export type { Owner };

/** A stored agent as the service sees it (plain object). */
export interface AgentRecord extends AgentInput, Owner {
  id: number;
  kind: AgentKind;
  created_at: string;
  updated_at: string | null;
}

/** Body of GET /v3/agents/utility/by-name/{name}: both id names as strings, as in paths and lists. */
export interface AgentByName {
  agent_id: string;
  id: string;
  name: string;
}
