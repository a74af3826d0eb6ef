/**
 * Each service as the security suites see it: its real app (createApp on real FerretDB and Redis, through the
 * service's own test helpers), keys of users A, B and C, objects of every kind owned by A, and one probe per route
 * for the cross-tenant matrix. The other suites (mass assignment, secrets) reuse the same worlds.
 */
import { createHmac, randomBytes, randomUUID } from 'node:crypto';
import type { Express } from 'express';
import request from 'supertest';

import type { InferenceTaskJob } from '@platform/agent-client';
import { createQueue, producerConnection, QUEUE_NAMES } from '@platform/queue';
import { startLocalServer, testInfra, uniqueName, type LocalServer, type TestDatabases } from '@platform/testing';

import { bullTaskQueue } from '../../services/agent/src/tasks/task.queue';
import { startAgentApp } from '../../services/agent/test/helpers';
import { startGraphStack } from '../../services/graph/test/helpers';
import { startOcrApp } from '../../services/ocr/test/support/helpers';
import { textPdf } from '../../services/ocr/test/support/text-fixtures';
import { ragBody, startRagApp } from '../../services/rag/test/helpers';
import { startRaiApp } from '../../services/rai/test/helpers';
import { startSchedulerApp } from '../../services/scheduler/test/helpers';
import { ingestBody, startVoiceApp } from '../../services/voice/test/helpers';
import { del, get, idOf, mintKeys, patch, post, put, USERS, type Probe, type Req, type World } from './tenancy-kit';

/** A world plus what the other suites read: the captured log lines and the databases to dump. */
export interface SecurityWorld extends World {
  /** Null where the service's test helper keeps its log to itself (graph's GraphStack). */
  lines: string[] | null;
  dbs: TestDatabases[];
  /** Plaintext secrets A handed to the service or got from it (provider API keys, webhook secrets, header values). */
  secrets: string[];
  /** The secrets the contract shows to their owner in answers (a Webhook object carries its `secret_key`). */
  shown: string[];
  /** Local servers standing in for things outside the product, and what reached them. */
  stubs: Record<string, LocalServer>;
}

/** A fresh ObjectId-shaped id. */
export const hexId = () => randomBytes(12).toString('hex');

/** An A object's id that names nothing any more: created by A, then deleted. */
async function deletedId(
  app: Express,
  key: string,
  create: Req,
  field: string,
  deletePath: (id: string) => string,
): Promise<string> {
  const id = await idOf(
    request(app)
      [create.method](create.path)
      .set('x-api-key', key)
      .send(create.body as object),
    field,
    `absent ${create.path}`,
  );
  const gone = await request(app).delete(deletePath(id)).set('x-api-key', key);
  if (gone.status !== 204) throw new Error(`deleting ${deletePath(id)} answered ${gone.status}`);
  return id;
}

const signed = (app: Express, hook: { id: string; secret_key: string }, body: string) =>
  request(app)
    .post(`/webhook-trigger/${hook.id}`)
    .set('content-type', 'application/json')
    .set(
      'x-webhook-signature',
      `sha256=${createHmac('sha256', Buffer.from(hook.secret_key, 'utf8')).update(body).digest('hex')}`,
    )
    .send(body);

/** Same routes for both kinds of schedules. */
function scheduleProbes(base: string, own: string, absent: string, run: string): Record<string, Probe> {
  const hidden = (req: (id: string) => Req): Probe => ({ kind: 'hidden', req, own, absent });
  return {
    [`POST ${base}/pause-bulk`]: hidden((id) => post(`${base}/pause-bulk/`, [id])),
    [`GET ${base}/{}`]: hidden((id) => get(`${base}/${id}`)),
    [`PATCH ${base}/{}`]: hidden((id) => patch(`${base}/${id}`, { cron_expression: '0 10 * * *' })),
    [`DELETE ${base}/{}`]: hidden((id) => del(`${base}/${id}`)),
    [`POST ${base}/{}/pause`]: hidden((id) => post(`${base}/${id}/pause`)),
    [`POST ${base}/{}/resume`]: hidden((id) => post(`${base}/${id}/resume`)),
    [`POST ${base}/{}/trigger`]: hidden((id) => post(`${base}/${id}/trigger`)),
    [`GET ${base}/{}/logs`]: hidden((id) => get(`${base}/${id}/logs`)),
    [`POST ${base}/{}/regenerate-callback-secret`]: hidden((id) => post(`${base}/${id}/regenerate-callback-secret`)),
    [`POST ${base}/{}/executions/replay`]: hidden((id) => post(`${base}/${id}/executions/replay`, { dry_run: true })),
    [`POST ${base}/{}/executions/{}/replay`]: hidden((id) => post(`${base}/${id}/executions/${run}/replay`)),
  };
}

export async function startSchedulerWorld(): Promise<SecurityWorld> {
  const t = await startSchedulerApp();
  const keys = await mintKeys(t.dbs.mintKey);
  const { app } = t;
  const as = (req: Req) =>
    request(app)
      [req.method](req.path)
      .set('x-api-key', keys.A)
      .send(req.body as object);
  const agentId = await t.createAgent(keys.A);
  const absentAgent = await t.createAgent(keys.A);
  await request(t.agentServiceUrl).delete(`/v3/agents/${absentAgent}`).set('x-api-key', keys.A).expect(204);

  // A's webhook and schedules name a completion callback: its secret is shown once (at creation), never again.
  const callback_url = 'https://receiver.example.com/a-callbacks';
  const hookRes = await as(post('/agent-webhooks/', { agent_id: agentId, description: 'A hook', callback_url }));
  if (hookRes.status !== 201) throw new Error(`webhook: ${hookRes.status} ${hookRes.text}`);
  const hook = hookRes.body as { id: string; secret_key: string; callback_secret: string };
  const absentHook = await deletedId(
    app,
    keys.A,
    post('/agent-webhooks/', { agent_id: agentId }),
    'id',
    (id) => `/agent-webhooks/${id}`,
  );
  const agentSchedule = post('/schedules/', {
    agent_id: agentId,
    cron_expression: '0 9 * * *',
    message: 'A schedule',
    callback_url,
  });
  const headerSecret = `Bearer a-http-secret-${randomUUID()}`;
  const httpSchedule = post('/http-schedules/', {
    name: 'A call',
    url: 'https://example.com/hook',
    cron_expression: '0 9 * * *',
    headers: { authorization: headerSecret },
    callback_url,
  });
  const scheduleRes = await as(agentSchedule);
  const schedule = await idOf(scheduleRes, 'id', 'schedule');
  const absentSchedule = await deletedId(app, keys.A, agentSchedule, 'id', (id) => `/schedules/${id}`);
  const httpRes = await as(httpSchedule);
  const http = await idOf(httpRes, 'id', 'http schedule');
  const callbackSecrets = [
    hook.callback_secret,
    await idOf(scheduleRes, 'callback_secret', 'schedule'),
    await idOf(httpRes, 'callback_secret', 'http schedule'),
  ];
  const absentHttp = await deletedId(app, keys.A, httpSchedule, 'id', (id) => `/http-schedules/${id}`);
  const hookRun = await idOf(signed(app, hook, '{"from":"A"}'), 'execution_id', 'trigger');
  const scheduleRun = await idOf(as(post(`/schedules/${schedule}/trigger`)), 'execution_id', 'schedule trigger');
  const httpRun = await idOf(as(post(`/http-schedules/${http}/trigger`)), 'execution_id', 'http schedule trigger');

  const hiddenHook = (req: (id: string) => Req): Probe => ({ kind: 'hidden', req, own: hook.id, absent: absentHook });
  const byAgent = (req: (id: string) => Req): Probe => ({ kind: 'hidden', req, own: agentId, absent: absentAgent });
  const probes: Record<string, Probe> = {
    'POST /webhook-trigger/{}': {
      kind: 'exempt',
      why: 'no API key: the webhook signing secret is the credential (services/scheduler/test/signature.test.ts)',
    },
    'POST /agent-webhooks': byAgent((id) => post('/agent-webhooks/', { agent_id: id, description: 'on A agent' })),
    'GET /agent-webhooks': { kind: 'list', req: get('/agent-webhooks/'), own: [hook.id] },
    'POST /agent-webhooks/pause-bulk': hiddenHook((id) => post('/agent-webhooks/pause-bulk/', [id])),
    'GET /agent-webhooks/executions/recent': {
      kind: 'list',
      req: get('/agent-webhooks/executions/recent?hours=720'),
      own: [hookRun],
    },
    'GET /agent-webhooks/{}/executions': hiddenHook((id) => get(`/agent-webhooks/${id}/executions`)),
    'GET /agent-webhooks/{}': hiddenHook((id) => get(`/agent-webhooks/${id}`)),
    'PATCH /agent-webhooks/{}': hiddenHook((id) => patch(`/agent-webhooks/${id}`, { description: 'taken over' })),
    'DELETE /agent-webhooks/{}': hiddenHook((id) => del(`/agent-webhooks/${id}`)),
    'POST /agent-webhooks/{}/pause': hiddenHook((id) => post(`/agent-webhooks/${id}/pause`)),
    'POST /agent-webhooks/{}/resume': hiddenHook((id) => post(`/agent-webhooks/${id}/resume`)),
    'POST /agent-webhooks/{}/regenerate-secret': hiddenHook((id) => post(`/agent-webhooks/${id}/regenerate-secret`)),
    'POST /agent-webhooks/{}/regenerate-callback-secret': hiddenHook((id) =>
      post(`/agent-webhooks/${id}/regenerate-callback-secret`),
    ),
    'POST /agent-webhooks/{}/executions/replay': hiddenHook((id) =>
      post(`/agent-webhooks/${id}/executions/replay`, { dry_run: true }),
    ),
    'POST /agent-webhooks/{}/executions/{}/replay': hiddenHook((id) =>
      post(`/agent-webhooks/${id}/executions/${hookRun}/replay`),
    ),
    'POST /schedules': byAgent((id) => post('/schedules/', { agent_id: id, cron_expression: '0 9 * * *' })),
    'GET /schedules': { kind: 'list', req: get('/schedules/'), own: [schedule] },
    'GET /schedules/executions/recent': {
      kind: 'list',
      req: get('/schedules/executions/recent?hours=720'),
      own: [scheduleRun],
    },
    ...scheduleProbes('/schedules', schedule, absentSchedule, scheduleRun),
    'POST /http-schedules': {
      kind: 'create',
      req: post('/http-schedules/', {
        name: 'B call',
        url: 'https://example.com/b',
        cron_expression: '0 9 * * *',
        ...USERS.A,
      }),
    },
    'GET /http-schedules': { kind: 'list', req: get('/http-schedules/'), own: [http] },
    'GET /http-schedules/executions/recent': {
      kind: 'list',
      req: get('/http-schedules/executions/recent?hours=720'),
      own: [httpRun],
    },
    ...scheduleProbes('/http-schedules', http, absentHttp, httpRun),
    'GET /schedules/by-agent/{}': byAgent((id) => get(`/schedules/by-agent/${id}`)),
  };
  const snapshot = [
    get(`/agent-webhooks/${hook.id}`),
    get('/agent-webhooks/'),
    get(`/agent-webhooks/${hook.id}/executions`),
    get(`/schedules/${schedule}`),
    get('/schedules/'),
    get(`/schedules/${schedule}/logs`),
    get(`/http-schedules/${http}`),
    get('/http-schedules/'),
    get(`/http-schedules/${http}/logs`),
    get(`/schedules/by-agent/${agentId}`),
  ];
  return worldOf(t, {
    service: 'scheduler',
    scope: 'owner',
    keys,
    probes,
    snapshot,
    // The callback secrets are not `shown`: only their creation answered with them, before the suites run.
    secrets: [hook.secret_key, headerSecret, ...callbackSecrets],
    shown: [hook.secret_key],
  });
}

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

export async function startAgentWorld(): Promise<SecurityWorld> {
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
  const as = (req: Req) =>
    request(app)
      [req.method](req.path)
      .set('x-api-key', keys.A)
      .send(req.body as object);
  const providerKey = `sk-a-provider-${randomUUID()}`;
  const credentialBody = post('/v3/providers/credentials', {
    name: 'A openai',
    provider_id: 'openai',
    credentials: { api_key: providerKey, base_url: `${llm.url}/v1` },
  });
  const credential = await idOf(as(credentialBody), 'credential_id', 'credential');
  const absentCredential = await deletedId(
    app,
    keys.A,
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
  const absentAgent = await deletedId(app, keys.A, agentBody, 'agent_id', (id) => `/v3/agents/${id}`);
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
  const toolHeader = `a-tool-secret-${randomUUID()}`;
  const tools = await request(app)
    .post('/v3/tools/')
    .set('x-api-key', keys.A)
    .send({
      tool_set_name: 'a_pets',
      openapi_schema: petsDocument(api.url),
      default_headers: { 'x-secret': toolHeader },
    });
  if (tools.status !== 201) throw new Error(`tools: ${tools.status} ${tools.text}`);
  const tool = (tools.body as { tool_ids: string[] }).tool_ids[0]!;
  const gone = await request(app)
    .post('/v3/tools/')
    .set('x-api-key', keys.A)
    .send({ tool_set_name: 'a_gone', openapi_schema: petsDocument(api.url) });
  const absentTool = (gone.body as { tool_ids: string[] }).tool_ids[0]!;
  await request(app).delete(`/v3/tools/${absentTool}`).set('x-api-key', keys.A).expect(204);
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

  const hidden = (own: string, absent: string, req: (id: string) => Req): Probe => ({
    kind: 'hidden',
    req,
    own,
    absent,
  });
  const cred = (req: (id: string) => Req) => hidden(credential, absentCredential, req);
  const ag = (req: (id: string) => Req) => hidden(agent, absentAgent, req);
  const tl = (req: (id: string) => Req) => hidden(tool, absentTool, req);
  const chat = (path: string) => ag((id) => post(path, { agent_id: id, session_id: 'b-session', message: 'hi' }));
  const task_ = (req: (id: string) => Req) => hidden(task, absentTask, req);
  const probes: Record<string, Probe> = {
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
    'POST /v3/agents': {
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
    },
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
    secrets: [providerKey, toolHeader],
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

/** A world of an in-process app from a service's test helpers (its app, captured log, databases and close). */
function worldOf(
  t: { app: Express; lines: string[]; dbs: TestDatabases; close(): Promise<void> },
  parts: Pick<World, 'service' | 'scope' | 'keys' | 'probes' | 'snapshot'> & Partial<SecurityWorld>,
): SecurityWorld {
  return {
    lines: t.lines,
    dbs: [t.dbs],
    secrets: [],
    shown: [],
    stubs: {},
    close: () => t.close(),
    app: t.app,
    ...parts,
  };
}

export async function startRagWorld(): Promise<SecurityWorld> {
  const t = await startRagApp();
  const keys = await mintKeys(t.dbs.mintKey);
  const agentKeyA = await t.agent.dbs.mintKey(USERS.A);
  const credential = await t.credential(agentKeyA);
  const absentCredential = await t.credential(agentKeyA);
  await request(t.agent.app)
    .delete(`/v3/providers/credentials/${absentCredential}`)
    .set('x-api-key', agentKeyA)
    .expect(204);
  for (const actor of ['B', 'C'] as const) await t.agent.dbs.mintKey(USERS[actor]); // B and C exist in the agent service too
  const body = (over: Record<string, unknown> = {}) =>
    ragBody({ llm_credential_id: credential, embedding_credential_id: credential, ...over });
  const create = (name: string) =>
    idOf(
      request(t.app)
        .post('/v3/rag/')
        .set('x-api-key', keys.A)
        .send(body({ collection_name: name })),
      'id',
      'rag config',
    );
  const config = await create('a_docs');
  const absent = await create('a_gone');
  await request(t.app).delete(`/v3/rag/${absent}/`).set('x-api-key', keys.A).expect(204);
  const cfg = (req: (id: string) => Req): Probe => ({ kind: 'hidden', req, own: config, absent });
  // A's knowledge base: one trained text, whose document id B and C must not reach either.
  const trained = await request(t.app)
    .post(`/v3/train/text/?rag_id=${config}`)
    .set('x-api-key', keys.A)
    .send({ data: [{ text: 'Ada Lovelace wrote the first program for the Analytical Engine.', source: 'a-note' }] });
  if (trained.status !== 200) throw new Error(`train: ${trained.status} ${trained.text}`);
  const documentId = (trained.body.documents as { id: string }[])[0]!.id;
  const upload = (kind: string, bytes: Buffer, name: string) => (id: string) => ({
    method: 'post' as const,
    path: `/v3/train/${kind}/?rag_id=${id}`,
    file: { field: 'file', bytes, name },
  });
  const probes: Record<string, Probe> = {
    'POST /v3/train/text': cfg((id) =>
      post(`/v3/train/text/?rag_id=${id}`, { data: [{ text: 'B was here', source: 'b-note' }] }),
    ),
    'POST /v3/train/txt': cfg(upload('txt', Buffer.from('B was here'), 'b.txt')),
    // This world has no OCR or graph service: the owner's PDF is refused as not a PDF (415) before it would be sent
    // there, and the owner's website training cannot run (both are trained for real in the rag service's knowledge
    // tests); B and C meet the owner check first either way.
    'POST /v3/train/pdf': cfg(upload('pdf', Buffer.from('B was here, not a PDF'), 'b.pdf')),
    'POST /v3/train/docx': cfg(upload('docx', Buffer.from('PK B was here'), 'b.docx')),
    'POST /v3/train/website': {
      kind: 'hidden',
      own: config,
      absent,
      req: (id) => post(`/v3/train/website/?rag_id=${id}`, { urls: ['https://example.com/'] }),
      ownWriteElsewhere: 'the crawl needs the graph service: services/rag/test/knowledge-website.int.test.ts',
    },
    'GET /v3/rag/documents/{}': cfg((id) => get(`/v3/rag/documents/${id}/`)),
    'DELETE /v3/rag/{}/docs': cfg((id) => ({ method: 'delete', path: `/v3/rag/${id}/docs/`, body: [documentId] })),
    'DELETE /v3/rag/{}/reset': cfg((id) => del(`/v3/rag/${id}/reset/`)),
    'GET /v3/rag/{}/retrieve': cfg((id) => get(`/v3/rag/${id}/retrieve/?query=Lovelace`)),
    // A configuration naming A's credential (in the agent service) is refused to B and C as if it did not exist.
    'POST /v3/rag': {
      kind: 'hidden',
      own: credential,
      absent: absentCredential,
      absentStatus: 422,
      req: (id) =>
        post('/v3/rag/', ragBody({ collection_name: 'b_docs', llm_credential_id: id, embedding_credential_id: id })),
    },
    'GET /v3/rag': { kind: 'list', req: get('/v3/rag/'), own: [config] },
    'GET /v3/rag/user/{}': {
      kind: 'hidden',
      own: USERS.A.user_id,
      absent: 'nobody-has-this-id',
      req: (id) => get(`/v3/rag/user/${id}/`),
    },
    'GET /v3/rag/{}': cfg((id) => get(`/v3/rag/${id}/`)),
    'PUT /v3/rag/{}': cfg((id) => put(`/v3/rag/${id}/`, body({ collection_name: 'taken', description: 'taken' }))),
    'DELETE /v3/rag/{}': cfg((id) => del(`/v3/rag/${id}/`)),
  };
  return worldOf(t, {
    service: 'rag',
    scope: 'owner',
    keys,
    probes,
    snapshot: [get(`/v3/rag/${config}/`), get('/v3/rag/'), get(`/v3/rag/documents/${config}/`)],
    dbs: [t.dbs, t.agent.dbs],
  });
}

export async function startRaiWorld(): Promise<SecurityWorld> {
  const t = await startRaiApp();
  const keys = await mintKeys(t.dbs.mintKey);
  const body = { keywords: { enabled: true, keywords: ['codename-a'] } };
  const policy = await t.policy(keys.A, body);
  const absent = await t.policy(keys.A, body);
  await request(t.app).delete(`/v1/rai/policies/${absent}`).set('x-api-key', keys.A).expect(204);
  const pol = (req: (id: string) => Req): Probe => ({ kind: 'hidden', req, own: policy, absent });
  const probes: Record<string, Probe> = {
    'GET /v1/rai/policies': { kind: 'list', req: get('/v1/rai/policies'), own: [policy] },
    'POST /v1/rai/policies': { kind: 'create', req: post('/v1/rai/policies', { name: 'own', ...USERS.A }) },
    'GET /v1/rai/policies/{}': pol((id) => get(`/v1/rai/policies/${id}`)),
    'PUT /v1/rai/policies/{}': pol((id) => put(`/v1/rai/policies/${id}`, { name: 'taken' })),
    'DELETE /v1/rai/policies/{}': pol((id) => del(`/v1/rai/policies/${id}`)),
    'POST /v1/rai/inference': pol((id) =>
      post('/v1/rai/inference', { policy_id: id, text: 'about codename-a', direction: 'input' }),
    ),
  };
  return worldOf(t, {
    service: 'rai',
    scope: 'owner',
    keys,
    probes,
    snapshot: [get(`/v1/rai/policies/${policy}`), get('/v1/rai/policies')],
  });
}

export async function startVoiceWorld(): Promise<SecurityWorld> {
  const t = await startVoiceApp();
  const keys = await mintKeys(t.dbs.mintKey);
  const agentId = `voice-agent-${randomUUID()}`;
  const stored = await request(t.app).post('/v1/transcripts').set('x-api-key', keys.A).send(ingestBody({ agentId }));
  if (stored.status !== 201) throw new Error(`transcript: ${stored.status} ${stored.text}`);
  const session = (stored.body as { transcript: { sessionId: string } }).transcript.sessionId;
  const probes: Record<string, Probe> = {
    // Ingest is idempotent on sessionId: another organization sending A's sessionId must neither see nor change A's.
    'POST /v1/transcripts': {
      kind: 'custom',
      sample: post('/v1/transcripts', ingestBody({ agentId })),
      run: async (send) => {
        const problems: string[] = [];
        const res = await send('C', post('/v1/transcripts', ingestBody({ sessionId: session, agentId: 'c-agent' })));
        if (JSON.stringify(res.body).includes(agentId))
          problems.push(`C's ingest of A's sessionId answered A's transcript: ${res.status}`);
        return problems;
      },
    },
    'GET /v1/transcripts': { kind: 'list', req: get('/v1/transcripts'), own: [session] },
    'GET /v1/transcripts/agent/{}/stats': {
      kind: 'hidden',
      own: agentId,
      absent: `absent-${randomUUID()}`,
      req: (id) => get(`/v1/transcripts/agent/${id}/stats`),
    },
    'GET /v1/transcripts/{}': {
      kind: 'hidden',
      own: session,
      absent: randomUUID(),
      req: (id) => get(`/v1/transcripts/${id}`),
    },
  };
  const snapshot = [
    get(`/v1/transcripts/${session}`),
    get('/v1/transcripts'),
    get(`/v1/transcripts/agent/${agentId}/stats`),
  ];
  return worldOf(t, { service: 'voice', scope: 'org', keys, probes, snapshot });
}

export async function startOcrWorld(): Promise<SecurityWorld> {
  const t = await startOcrApp();
  const keys = await mintKeys(t.dbs.mintKey);
  const pdf = Buffer.from(await textPdf([['Invoice of tenant A']]));
  const file = { field: 'file', bytes: pdf, name: 'a.pdf' };
  const extract = (org: string): Req => ({ method: 'post', path: `/extract?organization_id=${org}`, file });
  const extraction = await idOf(
    request(t.app).post(extract(USERS.A.org_id).path).set('x-api-key', keys.A).attach('file', pdf, 'a.pdf'),
    'id',
    'extraction',
  );
  const probes: Record<string, Probe> = {
    'POST /extract': { kind: 'hidden', own: USERS.A.org_id, absent: 'no-such-org', req: extract },
    'GET /extract/{}': { kind: 'hidden', own: extraction, absent: hexId(), req: (id) => get(`/extract/${id}`) },
  };
  return worldOf(t, { service: 'ocr', scope: 'org', keys, probes, snapshot: [get(`/extract/${extraction}`)] });
}

/** A one-page website for the crawler, outside the product. */
export function startSite(): Promise<LocalServer> {
  return startLocalServer((req, res) => {
    if (req.url === '/robots.txt') return res.writeHead(404).end();
    res
      .writeHead(200, { 'content-type': 'text/html' })
      .end('<html><body><h1>Ada Lovelace</h1><p>Ada Lovelace worked with Charles Babbage in London.</p></body></html>');
  });
}

export async function startGraphWorld(): Promise<SecurityWorld> {
  const site = await startSite();
  const g = await startGraphStack({ allowHosts: `127.0.0.1:${site.port}` });
  const keys = await mintKeys(g.dbs.mintKey);
  const rag = await g.createRag(keys.A);
  const absent = await g.createRag(keys.A);
  await request(g.ragApp).delete(`/v3/rag/${absent}/`).set('x-api-key', keys.A).expect(204);
  const body = { urls: [`${site.url}/`], max_crawl_pages: 1 };
  const trained = await request(g.app)
    .post(`/v4/knowledge_graph/website/?rag_id=${rag}`)
    .set('x-api-key', keys.A)
    .send(body);
  if (trained.status !== 200) throw new Error(`train: ${trained.status} ${trained.text}`);
  const task = await idOf(
    request(g.app).post(`/v4/knowledge_graph/website/?rag_id=${rag}&async=true`).set('x-api-key', keys.A).send(body),
    'task_id',
    'training task',
  );
  const byRag = (req: (id: string) => Req): Probe => ({ kind: 'hidden', req, own: rag, absent });
  const probes: Record<string, Probe> = {
    'POST /v4/knowledge_graph/neo4j/website': byRag((id) =>
      post(`/v4/knowledge_graph/neo4j/website/?rag_id=${id}`, body),
    ),
    'POST /v4/knowledge_graph/website': byRag((id) =>
      post(`/v4/knowledge_graph/website/?rag_id=${id}&async=true`, body),
    ),
    'GET /v4/knowledge_graph/task/{}': {
      kind: 'hidden',
      own: task,
      absent: hexId(),
      req: (id) => get(`/v4/knowledge_graph/task/${id}`),
    },
    'GET /v4/knowledge_graph/task/status/{}': {
      kind: 'hidden',
      own: task,
      absent: hexId(),
      req: (id) => get(`/v4/knowledge_graph/task/status/${id}`),
    },
    'GET /v4/knowledge_graph/graph': byRag((id) => get(`/v4/knowledge_graph/graph/?rag_id=${id}`)),
    'GET /v4/knowledge_graph/retrieve': byRag((id) => get(`/v4/knowledge_graph/retrieve/?rag_id=${id}&query=Ada`)),
    'DELETE /v4/knowledge_graph/graph': byRag((id) => del(`/v4/knowledge_graph/graph/?rag_id=${id}`)),
    'DELETE /v4/knowledge_graph/pages': byRag((id) => ({
      method: 'delete',
      path: `/v4/knowledge_graph/pages/?rag_id=${id}`,
      body: { source_ids: [hexId()] },
    })),
  };
  return {
    service: 'graph',
    scope: 'owner',
    app: g.app,
    keys,
    probes,
    snapshot: [get(`/v4/knowledge_graph/graph/?rag_id=${rag}`), get(`/v4/knowledge_graph/task/${task}`)],
    lines: null,
    dbs: [g.dbs, g.ragDbs],
    secrets: [],
    shown: [],
    stubs: { site },
    close: async () => {
      await g.close();
      await site.close();
    },
  };
}

export const WORLDS: Record<string, () => Promise<SecurityWorld>> = {
  scheduler: startSchedulerWorld,
  agent: startAgentWorld,
  rag: startRagWorld,
  rai: startRaiWorld,
  voice: startVoiceWorld,
  ocr: startOcrWorld,
  graph: startGraphWorld,
};

/** Declares `body` once per service, inside a describe of its own with the world started before and closed after. */
export function describeEachWorld(body: (world: () => SecurityWorld) => void): void {
  describe.each(Object.keys(WORLDS))('%s', (service) => {
    let world: SecurityWorld | undefined;
    beforeAll(async () => {
      world = await WORLDS[service]!();
    }, 120_000);
    afterAll(async () => {
      await world?.close();
    });
    body(() => world!);
  });
}
