/**
 * The `openai` client with the gateway as its base URL (`<gateway>/v3/inference/<agent_id>`) and an API key as its
 * key reaches the real agent service process (built from dist) and gets OpenAI's answers, plain and streamed.
 */
import { randomBytes } from 'node:crypto';
import { resolve } from 'node:path';
import OpenAI from 'openai';
import request from 'supertest';

import { listen, type RunningServer } from '@platform/http';
import {
  captureLogger,
  createTestDatabases,
  openAiTextReply,
  startFakeLlm,
  startServiceProcess,
  testInfra,
  type FakeLlm,
  type ServiceProcess,
  type TestDatabases,
} from '@platform/testing';

import { createApp } from '../src/app';

let dbs: TestDatabases;
let llm: FakeLlm;
let agentService: ServiceProcess;
let gateway: RunningServer;
let base: string;
let key: string;
let agentId: string;

beforeAll(async () => {
  dbs = await createTestDatabases('gwcompl');
  llm = await startFakeLlm('openai');
  agentService = await startServiceProcess({
    script: resolve(__dirname, '../../agent/dist/main.js'),
    env: {
      MONGODB_URI: testInfra.mongoUri,
      MONGODB_DB: `${dbs.conn.name}_agent`,
      AUTH_DB: dbs.authDb,
      CREDENTIALS_ENCRYPTION_KEY: randomBytes(32).toString('hex'),
      OUTBOUND_ALLOW_HOSTS: `127.0.0.1:${llm.port}`,
      LOG_LEVEL: 'warn',
    },
  });
  const app = createApp({
    logger: captureLogger('gateway').logger,
    upstreams: { agent: new URL(agentService.url) },
    timeoutMs: 5_000,
  });
  gateway = await listen(app, 0, undefined, '127.0.0.1');
  base = `http://127.0.0.1:${gateway.port}`;
  key = await dbs.mintKey({ user_id: 'u', org_id: 'o' });
  const credential = await request(base)
    .post('/v3/providers/credentials')
    .set('x-api-key', key)
    .send({
      name: 'llm',
      provider_id: 'openai',
      credentials: { api_key: 'sk-test-gateway-0123', base_url: llm.baseUrl },
    });
  expect(credential.status).toBe(201);
  const agent = await request(base).post('/v3/agents/').set('x-api-key', key).send({
    name: 'via gateway',
    provider_id: 'openai',
    model: 'gpt-4o-mini',
    llm_credential_id: credential.body.credential_id,
    system_prompt: 'Be brief.',
  });
  expect(agent.status).toBe(201);
  agentId = String(agent.body.agent_id);
}, 60_000);

afterAll(async () => {
  await gateway.close(1_000);
  await agentService.stop();
  await llm.close();
  await dbs.conn.useDb(`${dbs.conn.name}_agent`).dropDatabase();
  await dbs.cleanup();
});

const client = () => new OpenAI({ baseURL: `${base}/v3/inference/${agentId}`, apiKey: key, maxRetries: 0 });

test('the openai client, based at the gateway, gets a plain completion from the agent (key sent as Bearer)', async () => {
  const res = await client().chat.completions.create({
    model: 'any',
    messages: [
      { role: 'system', content: 'Reply in English.' },
      { role: 'user', content: 'Hello' },
    ],
  });
  expect(res.object).toBe('chat.completion');
  expect(res.model).toBe('any');
  expect(res.choices[0]!.message).toEqual({ role: 'assistant', content: 'echo: Hello', refusal: null });
  expect(res.usage).toEqual({ prompt_tokens: 11, completion_tokens: 7, total_tokens: 18 });
  const sent = llm.bodies().at(-1)!;
  expect(sent.messages).toEqual([
    { role: 'system', content: 'Be brief.\n\nReply in English.' },
    { role: 'user', content: 'Hello' },
  ]);
});

test('a streamed completion passes through the gateway chunk by chunk, ending with the usage', async () => {
  llm.script({ stream: ['Hi', ' there'] });
  const stream = await client().chat.completions.create({
    model: 'any',
    messages: [{ role: 'user', content: 'Hello' }],
    stream: true,
    stream_options: { include_usage: true },
  });
  let text = '';
  let usage: OpenAI.CompletionUsage | null | undefined;
  for await (const chunk of stream) {
    text += chunk.choices[0]?.delta.content ?? '';
    usage = chunk.usage;
  }
  expect(text).toBe('Hi there');
  expect(usage).toEqual({ prompt_tokens: 9, completion_tokens: 4, total_tokens: 13 });
});

test('the client’s own tools through the gateway: the openai runTools helper runs the function the model asks for and gets the final answer', async () => {
  llm.script(
    {
      body: {
        choices: [
          {
            index: 0,
            message: {
              role: 'assistant',
              content: null,
              tool_calls: [
                { id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Oslo"}' } },
              ],
            },
            finish_reason: 'tool_calls',
          },
        ],
      },
    },
    { body: openAiTextReply('Snow in Oslo') },
  );
  const asked: unknown[] = [];
  const runner = client().chat.completions.runTools({
    model: 'any',
    messages: [{ role: 'user', content: 'Weather in Oslo?' }],
    tools: [
      {
        type: 'function',
        function: {
          name: 'get_weather',
          description: 'The weather of a city',
          parameters: { type: 'object', properties: { city: { type: 'string' } } },
          parse: JSON.parse,
          function: (args: { city: string }) => {
            asked.push(args);
            return { sky: 'snow' };
          },
        },
      },
    ],
  });
  expect(await runner.finalContent()).toBe('Snow in Oslo');
  expect(asked).toEqual([{ city: 'Oslo' }]);
  // The second call carried the function's result back to the model, after the call it answers.
  expect(llm.bodies().at(-1)!.messages).toEqual([
    { role: 'system', content: 'Be brief.' },
    { role: 'user', content: 'Weather in Oslo?' },
    {
      role: 'assistant',
      content: null,
      tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Oslo"}' } }],
    },
    { role: 'tool', tool_call_id: 'call_1', content: '{"sky":"snow"}' },
  ]);
});

test('an unknown agent through the gateway is the client’s NotFoundError', async () => {
  const unknown = new OpenAI({ baseURL: `${base}/v3/inference/999999999`, apiKey: key, maxRetries: 0 });
  await expect(
    unknown.chat.completions.create({ model: 'm', messages: [{ role: 'user', content: 'x' }] }),
  ).rejects.toBeInstanceOf(OpenAI.NotFoundError);
});

describe('the other surfaces of issue 47 through the gateway', () => {
  it('Sessions v3: a completion’s session is listed, read, given metadata, and deleted with its messages', async () => {
    const client = new OpenAI({ baseURL: `${base}/v3/inference/${agentId}`, apiKey: key });
    const body = { model: 'm', messages: [{ role: 'user' as const, content: 'Hi' }], session_id: 'gw-session' };
    await client.chat.completions.create(body as OpenAI.ChatCompletionCreateParamsNonStreaming);
    const listed = await request(base).get(`/v3/sessions?agent_id=${agentId}&limit=10`).set('x-api-key', key);
    expect(listed.status).toBe(200);
    expect(listed.body.sessions.map((s: { session_id: string }) => s.session_id)).toContain('gw-session');
    const patched = await request(base)
      .patch('/v3/sessions/gw-session')
      .set('x-api-key', key)
      .send({ metadata: { customer: 'acme' } });
    expect([patched.status, patched.body.metadata, patched.body.agent_id]).toEqual([
      200,
      { customer: 'acme' },
      agentId,
    ]);
    const messages = await request(base).get('/v3/sessions/gw-session/messages').set('x-api-key', key);
    expect([messages.status, messages.body.messages.map((m: { role: string }) => m.role)]).toEqual([
      200,
      ['assistant', 'user'],
    ]);
    expect((await request(base).delete('/v3/sessions/gw-session').set('x-api-key', key)).status).toBe(204);
    const gone = await request(base).get('/v3/sessions/gw-session/messages').set('x-api-key', key);
    expect([gone.status, gone.body]).toEqual([404, { detail: 'Session not found' }]);
  });

  it('an agent’s stored-only fields and a credential’s extra keys are kept as sent and read back', async () => {
    const stored = {
      managed_agents: [{ id: 'a1', name: 'Researcher', usage_description: 'Looks things up' }],
      voice_config: { initiator: 'agent', message: 'Hello!' },
      file_output: true,
      mcp_prompts: [{ server_id: 'srv-1', prompt_name: 'summarize' }],
    };
    const agent = await request(base)
      .put(`/v3/agents/${agentId}`)
      .set('x-api-key', key)
      .send({
        ...(await request(base).get(`/v3/agents/${agentId}`).set('x-api-key', key)).body,
        ...stored,
      });
    expect(agent.status).toBe(200);
    const read = await request(base).get(`/v3/agents/${agentId}`).set('x-api-key', key);
    expect(read.body).toMatchObject(stored);
    const credential = await request(base)
      .post('/v3/providers/credentials')
      .set('x-api-key', key)
      .send({
        name: 'vectors',
        provider_id: 'qdrant',
        credentials: { api_key: 'qd-secret-0123', url: 'https://q.example' },
      });
    expect(credential.status).toBe(201);
    const back = await request(base)
      .get(`/v3/providers/credentials/${credential.body.credential_id}`)
      .set('x-api-key', key);
    expect(back.status).toBe(200);
    expect(JSON.stringify(back.body)).toContain('https://q.example');
    expect(JSON.stringify(back.body)).not.toContain('qd-secret-0123');
  });

  it('a credential create answers its message; an AWS credential of provider keys only needs no api_key', async () => {
    const aws = await request(base)
      .post('/v3/providers/credentials')
      .set('x-api-key', key)
      .send({
        name: 'memory',
        provider_id: 'aws',
        type: 'memory',
        credentials: {
          aws_access_key_id: 'AKIAEXAMPLE0002',
          aws_secret_access_key: 'aws-s3cret-0123',
          region: 'us-east-1',
        },
      });
    expect(aws.status).toBe(201);
    expect(aws.body).toEqual({ message: expect.any(String), credential_id: expect.any(String) });
    const read = await request(base).get(`/v3/providers/credentials/${aws.body.credential_id}`).set('x-api-key', key);
    expect(read.body.credentials).toMatchObject({ api_key: null, region: 'us-east-1', aws_secret_access_key: '***' });
  });

  it('an unknown path with a multipart body is 404 through the gateway, not 415', async () => {
    for (const path of ['/v3/agents/zzz/yyy', '/v3/providers/credentials/file_upload']) {
      const res = await request(base).post(path).set('x-api-key', key).attach('file', Buffer.from('x'), 'x.txt');
      expect([path, res.status]).toEqual([path, 404]);
    }
  });
});
