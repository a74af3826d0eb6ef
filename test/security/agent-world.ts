/**
 * The agent service as the security suites see it: A's provider credential, agents, tools, chat session and task,
 * with a local LLM provider and a local API standing in for what is outside the product.
 */
import { randomUUID } from 'node:crypto';
import type { Express } from 'express';
import request from 'supertest';

import type { InferenceTaskJob } from '@platform/agent-client';
import { createQueue, producerConnection, QUEUE_NAMES } from '@platform/queue';
import { startLocalServer, testInfra, uniqueName, type LocalServer } from '@platform/testing';

import { bullTaskQueue } from '../../services/agent/src/tasks/task.queue';
import { startAgentApp } from '../../services/agent/test/helpers';
import { del, get, idOf, mintKeys, patch, post, put, USERS, type Probe, type Req } from './tenancy-kit';
import { deletedId, sender, worldOf, type SecurityWorld } from './world-kit';

/** An OpenAPI document of a small API at `baseUrl`, for tool sets. */
export function petsDocument(baseUrl: string) {
  const ok = { '200': { description: 'OK' } };
  return {
    openapi: '3.0.3',
    info: { title: 'Pets', version: '1.0.0' },
    servers: [{ url: baseUrl }],
    paths: {
      '/pets': { get: { operationId: 'listPets', responses: ok } },
      '/pets/{petId}': {
        get: {
          operationId: 'getPet',
          parameters: [{ name: 'petId', in: 'path', required: true, schema: { type: 'string' } }],
          responses: ok,
        },
      },
    },
  };
}

/** A's objects in the agent service, ids of A's that name nothing, and the secrets A handed to the service. */
interface AgentWorldIds {
  providerKey: string;
  credential: string;
  absentCredential: string;
  /** The request that created A's agent (a sample of A's for the other suites). */
  agentBody: Req;
  agent: string;
  absentAgent: string;
  single: string;
  toolHeader: string;
  tool: string;
  absentTool: string;
  session: string;
  task: string;
  absentTask: string;
  created: string;
  absentSession: string;
}

/** The stand-ins for what is outside the product: an LLM provider that answers `ok`, and an API that echoes the URL. */
async function startStandIns() {
  const llm = await startLocalServer((req, res) => {
    const reply = {
      id: 'c',
      object: 'chat.completion',
      choices: [{ index: 0, message: { role: 'assistant', content: 'ok' }, finish_reason: 'stop' }],
    };
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(reply));
  });
  const api = await startLocalServer((req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ url: req.url }));
  });
  return { llm, api };
}

/** A's provider credential (on the LLM stand-in) and agents, and a credential and an agent of A's that are gone. */
async function createAgents(app: Express, key: string, llm: LocalServer) {
  const as = sender(app, key);
  const providerKey = `sk-a-provider-${randomUUID()}`;
  const credentialBody = post('/v3/providers/credentials', {
    name: 'A openai',
    provider_id: 'openai',
    credentials: { api_key: providerKey, base_url: `${llm.url}/v1` },
  });
  const credential = await idOf(as(credentialBody), 'credential_id', 'credential');
  const absentCredential = await deletedId(
    app,
    key,
    credentialBody,
    'credential_id',
    (id) => `/v3/providers/credentials/${id}`,
  );
  const agentBody = post('/v3/agents/', {
    name: 'tenant-a-agent',
    provider_id: 'openai',
    model: 'm',
    llm_credential_id: credential,
    system_prompt: 'Be brief.',
    features: [{ type: 'MEMORY', config: {} }],
  });
  const agent = await idOf(as(agentBody), 'agent_id', 'agent');
  const absentAgent = await deletedId(app, key, agentBody, 'agent_id', (id) => `/v3/agents/${id}`);
  const single = await idOf(
    as(
      post('/v3/agents/template/single-task', {
        name: 'tenant-a-single',
        agent_instructions: 'Summarise.',
        provider_id: 'openai',
        model: 'm',
        llm_credential_id: credential,
      }),
    ),
    'id',
    'single-task agent',
  );
  return { providerKey, credential, absentCredential, agentBody, agent, absentAgent, single };
}

/** A's tool set on the API stand-in (with a secret default header), and a tool of A's that is gone. */
async function createTools(app: Express, key: string, api: LocalServer) {
  const toolHeader = `a-tool-secret-${randomUUID()}`;
  const tools = await request(app)
    .post('/v3/tools/')
    .set('x-api-key', key)
    .send({
      tool_set_name: 'a_pets',
      openapi_schema: petsDocument(api.url),
      default_headers: { 'x-secret': toolHeader },
    });
  if (tools.status !== 201) throw new Error(`tools: ${tools.status} ${tools.text}`);
  const tool = (tools.body as { tool_ids: string[] }).tool_ids[0]!;
  const gone = await request(app)
    .post('/v3/tools/')
    .set('x-api-key', key)
    .send({ tool_set_name: 'a_gone', openapi_schema: petsDocument(api.url) });
  const absentTool = (gone.body as { tool_ids: string[] }).tool_ids[0]!;
  await request(app).delete(`/v3/tools/${absentTool}`).set('x-api-key', key).expect(204);
  return { toolHeader, tool, absentTool };
}

/** A chat turn and a task of A's agent `agent`, a session of A's created with metadata, and ids that name nothing. */
async function createSessions(app: Express, key: string, agent: string) {
  const as = sender(app, key);
  const session = `a-session-${randomUUID()}`;
  await idOf(
    as(post('/v3/inference/chat/', { agent_id: agent, session_id: session, message: 'hello from A' })),
    'response',
    'chat',
  );
  const task = await idOf(
    as(post('/v3/inference/task/', { agent_id: agent, session_id: session, message: 'task of A' })),
    'task_id',
    'task',
  );
  const absentTask = randomUUID();
  // A's sessions: the chat's (made by its turn) and one created with metadata.
  const created = await idOf(
    as(post('/v3/sessions', { agent_id: agent, metadata: { owner: 'A', note: 'private' } })),
    'session_id',
    'session',
  );
  const absentSession = `absent-${randomUUID()}`;
  return { session, task, absentTask, created, absentSession };
}

/** A probe of A's object `own` and of `absent`, an id of A's that names nothing, through the request `req(id)`. */
const hidden = (own: string, absent: string, req: (id: string) => Req): Probe => ({
  kind: 'hidden',
  req,
  own,
  absent,
});

/** Hidden probes of A's credential, agent, tool and task (against the absent one of each), and chat on an agent. */
function hiddenProbes(ids: AgentWorldIds) {
  const cred = (req: (id: string) => Req) => hidden(ids.credential, ids.absentCredential, req);
  const ag = (req: (id: string) => Req) => hidden(ids.agent, ids.absentAgent, req);
  const tl = (req: (id: string) => Req) => hidden(ids.tool, ids.absentTool, req);
  const chat = (path: string) => ag((id) => post(path, { agent_id: id, session_id: 'b-session', message: 'hi' }));
  const task_ = (req: (id: string) => Req) => hidden(ids.task, ids.absentTask, req);
  return { cred, ag, tl, chat, task_ };
}

/** The custom probe of `POST /v3/agents`: B and C each make an agent naming A's credential and chat with it. */
function agentOnCredentialProbe({ credential, agentBody, providerKey }: AgentWorldIds, llm: LocalServer): Probe {
  return {
    kind: 'custom',
    sample: agentBody,
    run: async (send) => {
      const problems: string[] = [];
      for (const actor of ['B', 'C'] as const) {
        const made = await send(
          actor,
          post('/v3/agents/', {
            name: `${actor} agent`,
            provider_id: 'openai',
            model: 'm',
            llm_credential_id: credential,
            system_prompt: 'x',
            ...USERS.A,
          }),
        );
        if (made.status !== 201 && made.status !== 404 && made.status !== 422)
          problems.push(`${actor}: agent with A's credential answered ${made.status}`);
        if (made.status !== 201) continue;
        const before = llm.requests.length;
        const ran = await send(
          actor,
          post('/v3/inference/chat/', { agent_id: String(made.body.agent_id), session_id: 's', message: 'spend A' }),
        );
        const used = llm.requests.slice(before).some((r) => JSON.stringify(r.headers).includes(providerKey));
        if (ran.status === 200 || used)
          problems.push(`${actor}: an agent naming A's credential ran on A's provider key (${ran.status})`);
      }
      return problems;
    },
  };
}

/** The probes of the credential and agent routes. */
function credentialAndAgentProbes(ids: AgentWorldIds, llm: LocalServer): Record<string, Probe> {
  const { credential, agent, single, absentAgent } = ids;
  const { cred, ag } = hiddenProbes(ids);
  return {
    'POST /v3/providers/credentials': {
      kind: 'create',
      req: post('/v3/providers/credentials', {
        name: 'own',
        provider_id: 'openai',
        credentials: { api_key: 'sk-own' },
        ...USERS.A,
      }),
    },
    'GET /v3/providers/credentials': { kind: 'list', req: get('/v3/providers/credentials'), own: [credential] },
    'GET /v3/providers/credentials/type/{}': {
      kind: 'list',
      req: get('/v3/providers/credentials/type/llm'),
      own: [credential],
    },
    'GET /v3/providers/credentials/user/{}/{}': {
      kind: 'list',
      req: get('/v3/providers/credentials/user/llm/openai'),
      own: [credential],
    },
    'GET /v3/providers/credentials/{}': cred((id) => get(`/v3/providers/credentials/${id}`)),
    'PUT /v3/providers/credentials/{}': cred((id) =>
      put(`/v3/providers/credentials/${id}`, { name: 'taken', credentials: { base_url: 'http://evil.example/v1' } }),
    ),
    'DELETE /v3/providers/credentials/{}': cred((id) => del(`/v3/providers/credentials/${id}`)),
    // Internal only: to an API key it is the unknown route it is to everyone.
    'POST /v3/providers/credentials/{}/open': cred((id) => post(`/v3/providers/credentials/${id}/open`)),
    // An agent of B naming A's credential must not run on A's provider key.
    'POST /v3/agents': agentOnCredentialProbe(ids, llm),
    'GET /v3/agents': { kind: 'list', req: get('/v3/agents/'), own: [agent, single] },
    'POST /v3/agents/template/single-task': {
      kind: 'create',
      req: post('/v3/agents/template/single-task', {
        name: 'own single',
        agent_instructions: 'x',
        provider_id: 'openai',
        model: 'm',
        ...USERS.A,
      }),
    },
    'PUT /v3/agents/template/single-task/{}': hidden(single, absentAgent, (id) =>
      put(`/v3/agents/template/single-task/${id}`, {
        name: 'taken',
        agent_instructions: 'x',
        provider_id: 'openai',
        model: 'm',
      }),
    ),
    'GET /v3/agents/utility/by-name/{}': hidden('tenant-a-agent', 'no-agent-has-this-name', (name) =>
      get(`/v3/agents/utility/by-name/${name}`),
    ),
    'GET /v3/agents/{}': ag((id) => get(`/v3/agents/${id}`)),
    'PUT /v3/agents/{}': ag((id) =>
      put(`/v3/agents/${id}`, { name: 'taken', provider_id: 'openai', model: 'm', system_prompt: 'x' }),
    ),
    'DELETE /v3/agents/{}': ag((id) => del(`/v3/agents/${id}`)),
  };
}

/** The probes of the inference, session and tool routes (tool sets on the API stand-in). */
function inferenceSessionAndToolProbes(ids: AgentWorldIds, api: LocalServer): Record<string, Probe> {
  const { session, created, absentSession, tool } = ids;
  const { ag, tl, chat, task_ } = hiddenProbes(ids);
  return {
    'POST /v3/inference/chat': chat('/v3/inference/chat/'),
    'POST /v3/inference/stream': chat('/v3/inference/stream/'),
    'POST /v3/inference/{}/chat/completions': ag((id) =>
      post(`/v3/inference/${id}/chat/completions`, {
        messages: [{ role: 'user', content: 'hi' }],
        session_id: session,
      }),
    ),
    'POST /v3/inference/task': chat('/v3/inference/task/'),
    'GET /v3/inference/task/{}': task_((id) => get(`/v3/inference/task/${id}`)),
    'POST /v3/inference/chat/task': chat('/v3/inference/chat/task'),
    'GET /v3/inference/chat/task/{}': task_((id) => get(`/v3/inference/chat/task/${id}`)),
    'POST /v3/inference/task/{}/run': task_((id) => post(`/v3/inference/task/${id}/run`, { final: true })),
    'POST /v3/inference/task/{}/fail': task_((id) => post(`/v3/inference/task/${id}/fail`, { error: 'x' })),
    'GET /v3/inference/sessions/{}/messages': hidden(session, `absent-${randomUUID()}`, (id) =>
      get(`/v3/inference/sessions/${id}/messages`),
    ),
    // B and C may name A's agent only as an agent that does not exist; a session id of A's is theirs to use.
    'POST /v3/sessions': ag((id) => post('/v3/sessions', { agent_id: id, metadata: { from: 'probe' } })),
    'GET /v3/sessions': { kind: 'list', req: get('/v3/sessions?limit=100'), own: [session, created] },
    'GET /v3/sessions/{}': hidden(session, absentSession, (id) => get(`/v3/sessions/${id}`)),
    'PATCH /v3/sessions/{}': hidden(created, absentSession, (id) =>
      patch(`/v3/sessions/${id}`, { metadata: { note: 'taken over', owner: null } }),
    ),
    'DELETE /v3/sessions/{}': hidden(session, absentSession, (id) => del(`/v3/sessions/${id}`)),
    'GET /v3/sessions/{}/messages': hidden(session, absentSession, (id) => get(`/v3/sessions/${id}/messages`)),
    'POST /v3/tools': {
      kind: 'create',
      // B and C may use a set name A uses: tool ids are per owner.
      req: post('/v3/tools/', { tool_set_name: 'a_pets', openapi_schema: petsDocument(api.url), ...USERS.A }),
      sample: post('/v3/tools/', { tool_set_name: 'a_more', openapi_schema: petsDocument(api.url) }),
    },
    'GET /v3/tools': { kind: 'list', req: get('/v3/tools/'), own: [tool] },
    'GET /v3/tools/all/user': { kind: 'list', req: get('/v3/tools/all/user'), own: [tool] },
    'POST /v3/tools/bulk-delete': tl((id) => post('/v3/tools/bulk-delete', { tool_ids: [id] })),
    'GET /v3/providers/tools/all': { kind: 'list', req: get('/v3/providers/tools/all'), own: [tool] },
    'GET /v3/tools/openapi/{}': tl((id) => get(`/v3/tools/openapi/${id}`)),
    'POST /v3/tools/openapi/{}/execute': tl((id) => post(`/v3/tools/openapi/${id}/execute?path=/pets&method=GET`)),
    'GET /v3/tools/{}': tl((id) => get(`/v3/tools/${id}`)),
    'PUT /v3/tools/{}': tl((id) =>
      put(`/v3/tools/${id}`, { description: 'taken', endpoint_defaults: { base_url: 'http://evil.example' } }),
    ),
    'PATCH /v3/tools/{}': tl((id) => patch(`/v3/tools/${id}?enabled=false`)),
    'DELETE /v3/tools/{}': tl((id) => del(`/v3/tools/${id}`)),
  };
}

export async function startAgentWorld(): Promise<SecurityWorld> {
  const { llm, api } = await startStandIns();
  const redis = producerConnection(testInfra.redisUrl);
  redis.on('error', () => undefined);
  const jobs = createQueue<InferenceTaskJob>(QUEUE_NAMES.inferenceTasks, redis, {}, uniqueName('q'));
  const t = await startAgentApp({
    allowHosts: `127.0.0.1:${llm.port},127.0.0.1:${api.port}`,
    toolEnhancer: { baseUrl: 'http://127.0.0.1:9/v1', model: 'none' },
    taskQueue: bullTaskQueue(jobs, { enqueueTimeoutMs: 2_000, attempts: 1, backoffMs: 1_000 }),
  });
  const keys = await mintKeys(t.dbs.mintKey);
  const { app } = t;
  const agents = await createAgents(app, keys.A, llm);
  const tools = await createTools(app, keys.A, api);
  const ids: AgentWorldIds = { ...agents, ...tools, ...(await createSessions(app, keys.A, agents.agent)) };
  const { credential, agent, single, tool, session, created } = ids;

  const probes: Record<string, Probe> = {
    ...credentialAndAgentProbes(ids, llm),
    ...inferenceSessionAndToolProbes(ids, api),
  };
  const snapshot = [
    get(`/v3/providers/credentials/${credential}`),
    get('/v3/providers/credentials'),
    get(`/v3/agents/${agent}`),
    get(`/v3/agents/${single}`),
    get('/v3/agents/'),
    get(`/v3/tools/${tool}`),
    get('/v3/tools/'),
    get(`/v3/inference/sessions/${session}/messages`),
    get(`/v3/sessions/${session}`),
    get(`/v3/sessions/${created}`),
    get(`/v3/sessions/${session}/messages`),
  ];
  return worldOf(t, {
    service: 'agent',
    scope: 'owner',
    keys,
    probes,
    snapshot,
    secrets: [ids.providerKey, ids.toolHeader],
    stubs: { llm, api },
    close: async () => {
      await t.close();
      await jobs.obliterate({ force: true }).catch(() => undefined);
      await jobs.close();
      redis.disconnect();
      await llm.close();
      await api.close();
    },
  });
}
