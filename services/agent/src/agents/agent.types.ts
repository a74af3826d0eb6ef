import type { Owner } from '@platform/db';

import type { AgentBody, SingleTaskBody } from './agent.schemas.types';

export type { Agent, AgentBody, AgentByName, AgentList, AgentListItem, Feature } from './agent.schemas.types';

/** Fields a client may set on an agent: a general body (`AgentBody`) or a single-task one (`SingleTaskBody`). */
export type AgentInput = SingleTaskBody & Partial<AgentBody>;

export type AgentKind = 'agent' | 'single_task';

export type { Owner };

/** A stored agent as the service sees it (plain object): its id a number; the routes show it as `Agent`. */
export interface AgentRecord extends AgentInput, Owner {
  id: number;
  kind: AgentKind;
  created_at: string;
  updated_at: string | null;
}
