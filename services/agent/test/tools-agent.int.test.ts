import request from 'supertest';

import {
  anthropicTextReply,
  anthropicToolUseReply,
  openAiTextReply,
  openAiToolCallReply,
  startPetStore,
  startResponderLlm,
  type PetStore,
  type ResponderLlm,
} from '@platform/testing';

import { stoppedText } from '../src/inference/tool-loop';
import { agentBody, startAgentApp, type AgentTestApp } from './helpers';
import { openApi30 } from './pet-store-docs';

type Message = {
  role: string;
  content: unknown;
  tool_calls?: { id: string; function: { name: string; arguments: string } }[];
  tool_call_id?: string;
};

let t: AgentTestApp;
let store: PetStore;
let openai: ResponderLlm;
let anthropic: ResponderLlm;
let alice: string;

/** The last tool result an OpenAI-protocol request carries, parsed, or null. */
function lastToolResult(body: Record<string, unknown>): Record<string, unknown> | null {
  const last = (body.messages as Message[]).at(-1)!;
  return last.role === 'tool' ? (JSON.parse(last.content as string) as Record<string, unknown>) : null;
}

/** A model that asks for getPet(petId) first, then answers with the name the tool returned (or the error it got). */
function petLookup(petId: unknown) {
  return (body: Record<string, unknown>) => {
    const result = lastToolResult(body);
    if (!result) return openAiToolCallReply('call_1', 'openapi-pets-getPet', { path_params: { petId } });
    if (result.error) return openAiTextReply(`Tool failed: ${JSON.stringify(result)}`);
    return openAiTextReply(`The pet is ${(result.data as { name: string }).name}`);
  };
}

beforeAll(async () => {
  store = await startPetStore();
  openai = await startResponderLlm('openai', petLookup(2));
  anthropic = await startResponderLlm('anthropic', () => anthropicTextReply('unused'));
  t = await startAgentApp({
    allowHosts: [store, openai, anthropic].map((s) => `127.0.0.1:${s.port}`).join(','),
    toolTimeoutMs: 500,
  });
  alice = await t.dbs.mintKey({ user_id: 'alice', org_id: 'acme' });
  await request(t.app)
    .post('/v3/tools/')
    .set('x-api-key', alice)
    .send({ tool_set_name: 'pets', openapi_schema: openApi30(store.url) })
    .expect(201);
});
afterAll(async () => {
  await Promise.all([store.close(), openai.close(), anthropic.close()]);
  await t.close();
});

async function agent(provider: 'openai' | 'anthropic', over: Record<string, unknown>): Promise<string> {
  const llm = provider === 'openai' ? openai : anthropic;
  const cred = await request(t.app)
    .post('/v3/providers/credentials')
    .set('x-api-key', alice)
    .send({
      name: provider,
      provider_id: provider,
      credentials: { api_key: 'sk-test-tools-0123456789', base_url: llm.baseUrl },
    });
  const res = await request(t.app)
    .post('/v3/agents/')
    .set('x-api-key', alice)
    .send(
      agentBody({
        provider_id: provider,
        llm_credential_id: cred.body.credential_id,
        features: [],
        system_prompt: 'You help with pets.',
        ...over,
      }),
    );
  return String(res.body.id);
}

const chat = (agentId: string, message: string, session = 's-tools') =>
  request(t.app)
    .post('/v3/inference/chat/')
    .set('x-api-key', alice)
    .send({ agent_id: agentId, session_id: session, message });

describe('tool calling on POST /v3/inference/stream/', () => {
  it('resolves the tool calls first, then streams the answer, and stores the turn with its tool calls', async () => {
    openai.respond(petLookup(2));
    const agentId = await agent('openai', { tools: ['openapi-pets-getPet'] });
    const before = store.requests.length;
    const res = await request(t.app)
      .post('/v3/inference/stream/')
      .set('x-api-key', alice)
      .send({ agent_id: agentId, session_id: 's-stream-tools', message: 'What is pet 2 called?' });
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/event-stream/);
    expect(res.text).toBe('data: {"content":"The pet is Tom"}\n\ndata: [DONE]\n\n');
    expect(store.requests.slice(before).map((r) => `${r.method} ${r.url}`)).toEqual(['GET /pets/2']);
    const stored = await request(t.app).get('/v3/inference/sessions/s-stream-tools/messages').set('x-api-key', alice);
    expect(stored.body.messages[0]).toMatchObject({
      role: 'assistant',
      content: 'The pet is Tom',
      tool_calls: [expect.objectContaining({ name: 'openapi-pets-getPet' })],
    });
  });
});

describe('tool calling, OpenAI protocol', () => {
  it('offers the agent’s tools, runs the call against the API, feeds the result back, and answers with it', async () => {
    openai.respond(petLookup(2));
    const agentId = await agent('openai', { tools: ['openapi-pets-getPet', 'openapi-pets-createPet'] });
    const before = { llm: openai.requests.length, store: store.requests.length };
    const res = await chat(agentId, 'What is pet 2 called?', 's-openai-tools');
    expect(res.status).toBe(200);
    expect(res.body.response).toBe('The pet is Tom');

    const [first, second] = openai.bodies().slice(before.llm);
    expect(openai.requests.length - before.llm).toBe(2);
    const offered = (
      first!.tools as { type: string; function: { name: string; parameters: { properties: object } } }[]
    ).map((f) => f.function.name);
    expect(offered.sort()).toEqual(['openapi-pets-createPet', 'openapi-pets-getPet']);
    expect(
      (first!.tools as { function: { parameters: { properties: object } } }[])[0]!.function.parameters.properties,
    ).toBeDefined();
    expect(store.requests.slice(before.store).map((r) => `${r.method} ${r.url}`)).toEqual(['GET /pets/2']);
    const sent = second!.messages as Message[];
    expect(sent.at(-2)).toMatchObject({
      role: 'assistant',
      content: null,
      tool_calls: [{ id: 'call_1', function: { name: 'openapi-pets-getPet' } }],
    });
    expect(sent.at(-1)).toMatchObject({ role: 'tool', tool_call_id: 'call_1' });

    const stored = await request(t.app).get('/v3/inference/sessions/s-openai-tools/messages').set('x-api-key', alice);
    const reply = stored.body.messages[0];
    expect(reply).toMatchObject({ role: 'assistant', content: 'The pet is Tom', usage: { total_tokens: 15 + 26 } });
    expect(reply.tool_calls).toEqual([
      expect.objectContaining({
        id: 'call_1',
        tool_id: 'openapi-pets-getPet',
        arguments: { path_params: { petId: 2 } },
        status_code: 200,
        error: null,
      }),
    ]);
    expect(JSON.parse(reply.tool_calls[0].result)).toMatchObject({ status_code: 200, data: { id: 2, name: 'Tom' } });
    expect(stored.body.messages[1].tool_calls).toEqual([]);
  });

  it('sends invalid arguments back to the model as an error, never to the API', async () => {
    openai.respond(petLookup('not-a-number'));
    const agentId = await agent('openai', { tools: ['openapi-pets'] });
    const before = store.requests.length;
    const res = await chat(agentId, 'Find pet not-a-number');
    expect(res.status).toBe(200);
    expect(res.body.response).toMatch(/^Tool failed: .*invalid arguments.*must be integer/);
    expect(store.requests.length).toBe(before);
  });

  it('returns a remote failure (a hang past the timeout) to the model, and the run still answers', async () => {
    openai.respond((body) => {
      const result = lastToolResult(body);
      return result
        ? openAiTextReply(`Tool failed: ${JSON.stringify(result)}`)
        : openAiToolCallReply('call_h', 'openapi-pets-hang', {});
    });
    const agentId = await agent('openai', { tools: ['openapi-pets-hang'] });
    const res = await chat(agentId, 'hang please');
    expect(res.status).toBe(200);
    expect(res.body.response).toContain('timeout after 500 ms');
  });

  it('stops after max_iterations model calls', async () => {
    openai.respond(() => openAiToolCallReply('call_loop', 'openapi-pets-listPets', { query_params: { limit: 1 } }));
    const agentId = await agent('openai', { tools: ['openapi-pets-listPets'], max_iterations: 3 });
    const before = { llm: openai.requests.length, store: store.requests.length };
    const res = await chat(agentId, 'loop forever');
    expect(res.status).toBe(200);
    expect(res.body.response).toBe(stoppedText(3));
    expect(openai.requests.length - before.llm).toBe(3);
    expect(store.requests.length - before.store).toBe(2);
  });

  it('offers no disabled tool, and sends no tools at all to an agent without any', async () => {
    await request(t.app)
      .patch('/v3/tools/openapi-pets-delete_pets_petId?enabled=false')
      .set('x-api-key', alice)
      .expect(200);
    openai.respond(() => openAiTextReply('no tools needed'));
    const withSet = await agent('openai', { tools: ['openapi-pets'] });
    await chat(withSet, 'hi').expect(200);
    const names = (openai.bodies().at(-1)!.tools as { function: { name: string } }[]).map((f) => f.function.name);
    expect(names).toHaveLength(5);
    expect(names).not.toContain('openapi-pets-delete_pets_petId');
    const without = await agent('openai', { tools: [] });
    await chat(without, 'hi').expect(200);
    expect(openai.bodies().at(-1)!.tools).toBeUndefined();
  });
});

describe('tool calling, Anthropic protocol', () => {
  it('answers tool_use with a tool_result and finishes with the tool’s data', async () => {
    anthropic.respond((body) => {
      const last = (body.messages as { role: string; content: unknown }[]).at(-1)!;
      const blocks = Array.isArray(last.content) ? (last.content as { type: string; content?: string }[]) : [];
      const result = blocks.find((b) => b.type === 'tool_result');
      if (!result) return anthropicToolUseReply('toolu_1', 'openapi-pets-createPet', { body: { name: 'Bubbles' } });
      return anthropicTextReply(
        `Created ${(JSON.parse(result.content!) as { data: { name: string; id: number } }).data.name}`,
      );
    });
    const agentId = await agent('anthropic', { tools: ['openapi-pets-createPet'], model: 'claude-sonnet-4-5' });
    const res = await chat(agentId, 'Add Bubbles');
    expect(res.status).toBe(200);
    expect(res.body.response).toBe('Created Bubbles');
    expect(store.requests.at(-1)).toMatchObject({ method: 'POST', url: '/pets', json: { name: 'Bubbles' } });

    const [first, second] = anthropic.bodies().slice(-2);
    expect(first!.tools).toEqual([
      expect.objectContaining({
        name: 'openapi-pets-createPet',
        input_schema: expect.objectContaining({ type: 'object' }),
      }),
    ]);
    expect((second!.messages as unknown[]).slice(-2)).toEqual([
      {
        role: 'assistant',
        content: [
          { type: 'text', text: 'Let me look that up.' },
          { type: 'tool_use', id: 'toolu_1', name: 'openapi-pets-createPet', input: { body: { name: 'Bubbles' } } },
        ],
      },
      {
        role: 'user',
        content: [
          { type: 'tool_result', tool_use_id: 'toolu_1', content: expect.stringContaining('"status_code":201') },
        ],
      },
    ]);
  });
});
