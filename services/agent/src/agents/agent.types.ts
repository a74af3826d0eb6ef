import type { Owner } from '@platform/db';

import type { AgentBody, SingleTaskBody } from './agent.schemas.types';

export type { Agent, AgentBody, AgentByName, AgentList, AgentListItem, Feature } from './agent.schemas.types';

/** Fields a client may set on an agent: a general body (`AgentBody`) or a single-task one (`SingleTaskBody`). */
export type AgentInput = SingleTaskBody & Partial<AgentBody>;

export type AgentKind = 'agent' | 'single_task';

export type { Owner };

/** The fields of the hosted product that agents store and return but this platform does not act on (contract §7). */
export const STORED_ONLY_FIELDS = [
  'managed_agents',
  'a2a_tools',
  'voice_config',
  'file_output',
  'disable_artifacts',
  'image_output_config',
  'git_agent',
  'proxy_config',
  'skills_catalog',
  'mcp_resources',
  'mcp_prompts',
] as const;
export type StoredOnlyField = (typeof STORED_ONLY_FIELDS)[number];
/** The stored-only fields of an agent, each as sent (absent: never set or cleared). */
export type StoredOnly = Partial<Pick<AgentBody, StoredOnlyField>>;

/** A stored agent as the service sees it (plain object): its id a number; the routes show it as `Agent`. */
export interface AgentRecord extends Omit<AgentInput, StoredOnlyField>, Owner {
  id: number;
  kind: AgentKind;
  created_at: string;
  updated_at: string | null;
  /**
   * The stored-only fields that are set, as one JSON object text (`StoredOnly`): read from the store without
   * parsing, parsed only when the agent is shown, so a run (which reads its agent from a cache) copies one string.
   */
  stored_only_json: string;
}
