import { Router } from 'express';

import { principalOf } from '@platform/auth';
import { validate } from '@platform/http';

import { agentBody, byNamePath, listQuery, singleTaskBody, singleTaskPatch } from './agent.schemas';
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

/** /v3/agents routes. Handlers validate, call the service, respond. */
export function createAgentRoutes(service: AgentService): Router {
  const r = Router();

  r.post('/v3/agents', async (req, res) => {
    const input = validate(agentBody, req.body, 'body');
    const agent = await service.create(principalOf(req), 'agent', input);
    res.status(201).json({ id: agent.id, agent_id: String(agent.id), message: 'Agent created successfully' });
  });

  r.get('/v3/agents', async (req, res) => {
    const { items, total } = await service.list(principalOf(req), validate(listQuery, req.query, 'query'));
    res.json({ agents: items.map(listItem), total });
  });

  r.post('/v3/agents/template/single-task', async (req, res) => {
    const input = validate(singleTaskBody, req.body, 'body');
    const agent = await service.create(principalOf(req), 'single_task', input);
    res.status(201).json({ id: agent.id, message: 'Single-task agent created successfully' });
  });

  r.put('/v3/agents/template/single-task/:agentId', async (req, res) => {
    const patch = validate(singleTaskPatch, req.body, 'body');
    await service.update(principalOf(req), req.params.agentId, patch, 'single_task');
    res.json({ message: 'Single-task agent updated successfully' });
  });

  r.get('/v3/agents/utility/by-name/:name', async (req, res) => {
    const { name } = validate(byNamePath, req.params, 'path');
    const agent = await service.getByName(principalOf(req), name);
    const body: AgentByName = { agent_id: String(agent.id), id: String(agent.id), name: agent.name };
    res.json(body);
  });

  r.get('/v3/agents/:agentId', async (req, res) => {
    res.json(present(await service.get(principalOf(req), req.params.agentId)));
  });

  r.put('/v3/agents/:agentId', async (req, res) => {
    const input = validate(agentBody, req.body, 'body');
    await service.replace(principalOf(req), req.params.agentId, input);
    res.json({ message: 'Agent updated successfully' });
  });

  r.delete('/v3/agents/:agentId', async (req, res) => {
    await service.delete(principalOf(req), req.params.agentId);
    res.status(204).end();
  });

  return r;
}
