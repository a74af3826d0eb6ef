/** The agent app, with a credential for a stub provider, agents, tool sets on a stub API and a stored session. */
import request from 'supertest';

import type { InferenceTaskJob } from '@platform/agent-client';
import { listen, type RunningServer } from '@platform/http';
import { createQueue, producerConnection, QUEUE_NAMES, within } from '@platform/queue';
import {
  anthropicTextReply,
  openAiTextReply,
  startLocalServer,
  testInfra,
  uniqueName,
  type LocalServer,
} from '@platform/testing';

import { bullTaskQueue } from '../../services/agent/src/tasks/task.queue';
import { startAgentApp } from '../../services/agent/test/helpers';
import type { Operation } from './openapi-operations';
import {
  created,
  errorLogReader,
  openapiOf,
  OTHER,
  OWNER,
  poolFor,
  times,
  type Pools,
  type Target,
} from './target-kit';

/** A provider that answers every chat at once, in both protocols, so inference runs end to end and never waits. */
async function startStubLlm(): Promise<LocalServer> {
  const stub = await startLocalServer((req, res) => {
    stub.requests.length = 0; // it would keep every request; a long run sends many
    const reply = req.url.endsWith('/messages') ? anthropicTextReply('stub answer') : openAiTextReply('stub answer');
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(reply));
  });
  return stub;
}

/** A user API for tools, answering at once (no route of its document hangs or streams). */
async function startStubApi(): Promise<LocalServer> {
  const stub = await startLocalServer((req, res) => {
    stub.requests.length = 0;
    res
      .writeHead(req.url.startsWith('/pets') ? 200 : 404, { 'content-type': 'application/json' })
      .end(JSON.stringify({ url: req.url }));
  });
  return stub;
}

function toolDocument(baseUrl: string) {
  const ok = { '200': { description: 'OK' } };
  return {
    openapi: '3.0.3',
    info: { title: 'Pets', version: '1.0.0' },
    servers: [{ url: baseUrl }],
    paths: {
      '/pets': {
        get: {
          operationId: 'listPets',
          parameters: [{ name: 'limit', in: 'query', schema: { type: 'integer' } }],
          responses: ok,
        },
      },
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

/** The agent app on its own database; outbound calls may reach only the two stubs. */
export async function startAgentTarget(): Promise<Target> {
  const llm = await startStubLlm();
  const api = await startStubApi();
  // Tasks go to a real queue of this target's own (nobody consumes it: the fuzz judges the answers, not the runs).
  const redis = producerConnection(testInfra.redisUrl);
  const taskJobs = createQueue<InferenceTaskJob>(QUEUE_NAMES.inferenceTasks, redis, {}, uniqueName('fuzzq'));
  const t = await startAgentApp({
    taskQueue: bullTaskQueue(taskJobs, { enqueueTimeoutMs: 2_000, attempts: 1, backoffMs: 1_000 }),
    allowHosts: `127.0.0.1:${llm.port},127.0.0.1:${api.port}`,
    providerTimeoutMs: 5_000,
    toolTimeoutMs: 5_000,
    // Not allow-listed, so enhancement is refused at once (and creation goes on), never sent to a real vendor.
    toolEnhancer: { baseUrl: 'http://127.0.0.1:9/v1', model: 'stub' },
  });
  let server: RunningServer | undefined;
  const stopStubs = async () => {
    await llm.close();
    await api.close();
    await within(2_000, taskJobs.obliterate({ force: true })).catch(() => undefined);
    await taskJobs.close();
    redis.disconnect();
  };
  try {
    const key = await t.dbs.mintKey(OWNER);
    const otherKey = await t.dbs.mintKey(OTHER);
    const post = (path: string, body: object) => request(t.app).post(path).set('x-api-key', key).send(body);
    const credential = () =>
      created(
        post('/v3/providers/credentials', {
          name: 'stub',
          provider_id: 'openai',
          credentials: { api_key: 'sk-stub', base_url: `${llm.url}/v1` },
        }),
        'credential_id',
      );
    const credentialId = await credential();
    const agent = () =>
      created(
        post('/v3/agents/', {
          name: 'Fuzz bot',
          provider_id: 'openai',
          model: 'stub-model',
          llm_credential_id: credentialId,
          system_prompt: 'Be brief.',
        }),
        'agent_id',
      );
    let sets = 0;
    const toolSet = async () => {
      const res = await post('/v3/tools/', {
        tool_set_name: `fuzz_set_${sets++}`,
        openapi_schema: toolDocument(api.url),
      });
      if (res.status !== 201) throw new Error(`tool fixture answered ${res.status}: ${res.text}`);
      return res.body.tool_ids as string[];
    };
    const agents: Pools = { read: await times(1, agent), write: await times(2, agent), delete: await times(3, agent) };
    const tools: Pools = {
      read: await toolSet(),
      write: await toolSet(),
      delete: [...(await toolSet()), ...(await toolSet())],
    };
    const credentials: Pools = { read: [credentialId], write: [credentialId], delete: await times(3, credential) };
    const chat = await post('/v3/inference/chat/', {
      agent_id: agents.read[0],
      session_id: 'fuzz-session',
      message: 'hello',
    });
    if (chat.status !== 200) throw new Error(`chat fixture answered ${chat.status}: ${chat.text}`);
    server = await listen(t.app, 0, undefined, '127.0.0.1');
    const pools: Record<string, Pools> = { agent_id: agents, tool_id: tools, credential_id: credentials };
    const running = server;
    return {
      app: t.app,
      port: server.port,
      doc: await openapiOf(t.app),
      ctx: {
        apiKey: key,
        otherApiKey: otherKey,
        newErrorLogs: errorLogReader(t.lines),
        pathIds: (op: Operation, param: string) =>
          param === 'session_id' ? ['fuzz-session'] : pools[param] ? poolFor(op, pools[param]) : [],
        known: {
          agent_id: [agents.read[0]!, Number(agents.read[0])],
          session_id: ['fuzz-session', 'another-session'],
          llm_credential_id: [credentialId],
          provider_id: ['openai', 'OpenAI', 'anthropic'],
          model: ['stub-model'],
          base_url: [`${llm.url}/v1`],
          tool_set_name: ['fuzz_new', 'fuzz_set_0'],
          openapi_schema: [toolDocument(api.url)],
          tools: [tools.read],
          path: ['/pets', '/pets/1', '/pets?limit=2', '/pets/%00', '/pets/%ZZ'],
          method: ['GET', 'get', 'POST'],
        },
      },
      close: async () => {
        await running.close(1_000);
        await t.close();
        await stopStubs();
      },
    };
  } catch (err) {
    await server?.close(0);
    await t.close();
    await stopStubs();
    throw err;
  }
}
