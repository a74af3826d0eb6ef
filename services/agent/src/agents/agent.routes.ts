import type { Request } from 'express';

import { principalOf } from '@platform/auth';
import { route, type Route } from '@platform/http';

import { MAX_RAG_IDS } from '../inference/features/knowledge-base.config';
import {
  agent,
  agentBody,
  agentByName,
  agentCreated,
  agentList,
  agentMessage,
  agentPath,
  byNamePath,
  listQuery,
  singleTaskBody,
  singleTaskCreated,
  singleTaskPatch,
  UNPAGED_LIST_MAX,
} from './agent.schemas';
import type { AgentService } from './agent.service';
import {
  STORED_ONLY_FIELDS,
  type Agent,
  type AgentByName,
  type AgentListItem,
  type AgentRecord,
  type StoredOnly,
} from './agent.types';

/** Every stored-only field unset (null), under what is stored. */
const UNSET_STORED_ONLY = Object.fromEntries(STORED_ONLY_FIELDS.map((f) => [f, null])) as StoredOnly;

/** The full record on read: ids as strings, as in paths and lists; stored-only fields as sent (unset ones null). */
function present({ stored_only_json, ...agent }: AgentRecord): Agent {
  return {
    ...agent,
    ...UNSET_STORED_ONLY,
    ...(JSON.parse(stored_only_json) as StoredOnly),
    id: String(agent.id),
    agent_id: String(agent.id),
    max_concurrency: agent.max_concurrency ?? null,
  };
}

/** A list item: both id names (public clients read `agent_id`), and `description` exactly as GET shows it. */
function listItem(agent: AgentRecord): AgentListItem {
  return { id: String(agent.id), agent_id: String(agent.id), name: agent.name, description: agent.description ?? null };
}

/** The path's agent id as sent (a malformed one is simply not found). */
const agentIdOf = (req: Request): string => String(req.params.agent_id);

const NOT_FOUND = 'Agent not found';
const updated = { description: 'Updated', body: agentMessage };
const featureCheck = `A KNOWLEDGE_BASE feature naming no rag id (config.rag_id, config.lyzr_rag.rag_id, config.agentic_rag[] or oneshot_rag[] entries), more than ${MAX_RAG_IDS}, or one the caller does not own → 422 at ["body","features",i,"config"]; the rag service unreachable → 503.`;

/**
 * /v3/agents routes. A malformed agent id is simply not found (404), so `{agent_id}` is documented, not checked; the
 * fixed paths (template/, utility/) have more segments than `{agent_id}`, so no order between them matters.
 */
export const agentRoutes: Route<AgentService>[] = [
  route({
    method: 'post',
    path: '/v3/agents/',
    summary: 'Create an agent',
    description: featureCheck,
    body: agentBody,
    responses: { '201': { description: 'Created', body: agentCreated } },
    handle: async (service: AgentService, { req, body }) => {
      const created = await service.create(principalOf(req), 'agent', body);
      return { id: created.id, agent_id: String(created.id), message: 'Agent created successfully' };
    },
  }),
  route({
    method: 'get',
    path: '/v3/agents/',
    summary: "List the caller's agents, newest first",
    description: `With skip or limit, one page (limit ≤ 100); with neither, every agent of the caller up to ${UNPAGED_LIST_MAX}.`,
    query: listQuery,
    responses: { '200': { description: 'Agents', body: agentList } },
    handle: async (service: AgentService, { req, query }) => {
      const { items, total } = await service.list(principalOf(req), query);
      return { agents: items.map(listItem), total };
    },
  }),
  route({
    method: 'post',
    path: '/v3/agents/template/single-task',
    summary: 'Create a single-task agent',
    description: featureCheck,
    body: singleTaskBody,
    responses: { '201': { description: 'Created', body: singleTaskCreated } },
    handle: async (service: AgentService, { req, body }) => {
      const created = await service.create(principalOf(req), 'single_task', body);
      return { id: created.id, message: 'Single-task agent created successfully' };
    },
  }),
  route({
    method: 'put',
    path: '/v3/agents/template/single-task/{agent_id}',
    summary: 'Update a single-task agent: only the fields sent change (explicit null clears a nullable field)',
    description: featureCheck,
    paramsDoc: agentPath,
    body: singleTaskPatch,
    responses: { '200': updated, '404': NOT_FOUND },
    handle: async (service: AgentService, { req, body }) => {
      await service.update(principalOf(req), agentIdOf(req), body, 'single_task');
      return { message: 'Single-task agent updated successfully' };
    },
  }),
  route({
    method: 'get',
    path: '/v3/agents/utility/by-name/{name}',
    summary: "The caller's newest agent with exactly this name",
    params: byNamePath,
    responses: { '200': { description: 'Its ids and name', body: agentByName }, '404': NOT_FOUND },
    handle: async (service: AgentService, { req, params }) => {
      const found = await service.getByName(principalOf(req), params.name);
      const body: AgentByName = { agent_id: String(found.id), id: String(found.id), name: found.name };
      return body;
    },
  }),
  route({
    method: 'get',
    path: '/v3/agents/{agent_id}',
    summary: 'Get an agent',
    paramsDoc: agentPath,
    responses: { '200': { description: 'Agent', body: agent }, '404': NOT_FOUND },
    handle: async (service: AgentService, { req }) => present(await service.get(principalOf(req), agentIdOf(req))),
  }),
  route({
    method: 'put',
    path: '/v3/agents/{agent_id}',
    summary: 'Replace an agent',
    description: featureCheck,
    paramsDoc: agentPath,
    body: agentBody,
    responses: { '200': updated, '404': NOT_FOUND },
    handle: async (service: AgentService, { req, body }) => {
      await service.replace(principalOf(req), agentIdOf(req), body);
      return { message: 'Agent updated successfully' };
    },
  }),
  route({
    method: 'delete',
    path: '/v3/agents/{agent_id}',
    summary: 'Delete an agent',
    paramsDoc: agentPath,
    responses: { '204': { description: 'Deleted' }, '404': NOT_FOUND },
    handle: async (service: AgentService, { req }) => {
      await service.delete(principalOf(req), agentIdOf(req));
    },
  }),
];
