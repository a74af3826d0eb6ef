/**
 * POST /v3/inference/{agent_id}/chat/completions through the official `openai` client: streamed answers, the agent's
 * own tools (run on the server) and the caller's own tools (handed back as tool_calls). The stack:
 * chat-completions-fixture.ts.
 */
import type OpenAI from 'openai';
import request from 'supertest';

import { openAiTextReply, openAiToolCallReply } from '@platform/testing';

import { agent, alice, client, lastSent, llm, store, t, useCompletionsStack } from './chat-completions-fixture';
import { failure, inSession, user } from './chat-completions-messages';

useCompletionsStack();

describe('streamed answers', () => {
  it('streams chat.completion.chunk events ending [DONE], the role first and the usage last with include_usage', async () => {
    const agentId = await agent();
    llm.script({ stream: ['Hel', 'lo, ', 'world'] });
    const stream = await client(agentId).chat.completions.create({
      model: 'gpt-4o',
      messages: [user('Hi')],
      stream: true,
      stream_options: { include_usage: true },
    });
    const chunks: OpenAI.Chat.Completions.ChatCompletionChunk[] = [];
    for await (const chunk of stream) chunks.push(chunk);
    expect(new Set(chunks.map((c) => c.id)).size).toBe(1);
    expect(chunks.every((c) => c.object === 'chat.completion.chunk' && c.model === 'gpt-4o')).toBe(true);
    expect(chunks.map((c) => c.choices[0]?.delta ?? null)).toEqual([
      { role: 'assistant', content: '' },
      { content: 'Hel' },
      { content: 'lo, ' },
      { content: 'world' },
      {},
      null,
    ]);
    expect(chunks.map((c) => c.choices[0]?.finish_reason ?? null)).toEqual([null, null, null, null, 'stop', null]);
    expect(chunks.slice(0, -1).every((c) => c.usage === null)).toBe(true);
    expect(chunks.at(-1)!.usage).toEqual({ prompt_tokens: 9, completion_tokens: 4, total_tokens: 13 });
    expect(lastSent().stream).toBe(true);
  });

  it('without include_usage there is no usage; the raw stream ends with data: [DONE]', async () => {
    const agentId = await agent();
    llm.script({ stream: ['a', 'b'] });
    const res = await request(t.app)
      .post(`/v3/inference/${agentId}/chat/completions`)
      .set('x-api-key', alice)
      .send({ messages: [user('Hi')], stream: true, session_id: 'raw-stream' });
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/event-stream/);
    expect(res.headers['x-session-id']).toBe('raw-stream');
    const events = res.text.split('\n\n').filter(Boolean);
    expect(events.at(-1)).toBe('data: [DONE]');
    const chunks = events.slice(0, -1).map((e) => JSON.parse(e.replace(/^data: /, '')) as Record<string, unknown>);
    expect(chunks.map((c) => 'usage' in c)).toEqual([false, false, false, false]);
    expect(chunks.map((c) => (c.choices as { delta: unknown }[])[0]!.delta)).toEqual([
      { role: 'assistant', content: '' },
      { content: 'a' },
      { content: 'b' },
      {},
    ]);
    // The turn is stored when the stream ends.
    const stored = await request(t.app).get('/v3/inference/sessions/raw-stream/messages').set('x-api-key', alice);
    expect(stored.body.messages.map((m: { content: string }) => m.content)).toEqual(['ab', 'Hi']);
  });

  it('errors before the first chunk keep their status; a provider failure after it raises an APIError', async () => {
    const agentId = await agent();
    const notFound = await failure(
      client('999999999').chat.completions.create({ model: 'm', messages: [user('x')], stream: true }),
    );
    expect(notFound.status).toBe(404);
    llm.script({ stream: ['partial', 'never'], failAfter: 1 });
    const stream = await client(agentId).chat.completions.create({ model: 'm', messages: [user('x')], stream: true });
    const seen: string[] = [];
    const err = await failure(
      (async () => {
        for await (const chunk of stream) seen.push(chunk.choices[0]?.delta.content ?? '');
      })(),
    );
    expect(seen).toEqual(['', 'partial']);
    expect(err.message).toMatch(/LLM provider error/);
  });
});

describe('the agent’s own tools', () => {
  it('run on the server, as on chat: the client gets the final answer', async () => {
    const agentId = await agent({ tools: ['openapi-pets-getPet'], features: [] });
    llm.script(
      { body: openAiToolCallReply('call_1', 'openapi-pets-getPet', { path_params: { petId: 2 } }) },
      { body: openAiTextReply('The pet is Tom') },
    );
    const before = store.requests.length;
    const res = await client(agentId).chat.completions.create({ model: 'm', messages: [user('Pet 2?')] });
    expect(res.choices[0]!.message.content).toBe('The pet is Tom');
    expect(res.usage).toEqual({ prompt_tokens: 30, completion_tokens: 11, total_tokens: 41 });
    expect(store.requests.slice(before).map((r) => `${r.method} ${r.url}`)).toEqual(['GET /pets/2']);
    const offered = (llm.bodies().at(-2)!.tools as { function: { name: string } }[]).map((f) => f.function.name);
    expect(offered).toEqual(['openapi-pets-getPet']);
  });
});

const weather = {
  type: 'function' as const,
  function: {
    name: 'get_weather',
    description: 'The weather of a city',
    parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
  },
};
const askedCall = {
  id: 'call_w',
  type: 'function' as const,
  function: { name: 'get_weather', arguments: '{"city":"Paris"}' },
};

describe('the caller’s own tools', () => {
  const offeredNames = () => (lastSent().tools as { function: { name: string } }[]).map((f) => f.function.name);

  it('are offered beside the agent’s tools; a call of one comes back as tool_calls, and the conversation continues with its result', async () => {
    const agentId = await agent({ tools: ['openapi-pets-getPet'], features: [] });
    const c = client(agentId);
    llm.script({ body: openAiToolCallReply('call_w', 'get_weather', { city: 'Paris' }) });
    const asked = await c.chat.completions.create(
      inSession('weather-1', { model: 'm', messages: [user('Weather in Paris?')], tools: [weather] }),
    );
    expect(asked.choices).toEqual([
      {
        index: 0,
        message: { role: 'assistant', content: null, refusal: null, tool_calls: [askedCall] },
        logprobs: null,
        finish_reason: 'tool_calls',
      },
    ]);
    expect(asked.usage).toEqual({ prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 });
    expect(offeredNames()).toEqual(['openapi-pets-getPet', 'get_weather']);
    expect((lastSent().tools as { function: unknown }[])[1]!.function).toEqual(weather.function);
    expect(lastSent().tool_choice).toBeUndefined();
    // Not an answer yet: nothing is stored until the caller continues.
    const session = () => request(t.app).get('/v3/inference/sessions/weather-1/messages').set('x-api-key', alice);
    expect((await session()).body.messages).toEqual([]);

    llm.script({ body: openAiTextReply('Sunny in Paris') });
    const answered = await c.chat.completions.create(
      inSession('weather-1', {
        model: 'm',
        tools: [weather],
        messages: [
          user('Weather in Paris?'),
          asked.choices[0]!.message,
          { role: 'tool', tool_call_id: 'call_w', content: '{"sky":"sunny"}' },
        ],
      }),
    );
    expect([answered.choices[0]!.message.content, answered.choices[0]!.finish_reason]).toEqual([
      'Sunny in Paris',
      'stop',
    ]);
    expect(lastSent().messages).toEqual([
      { role: 'system', content: 'You are helpful.' },
      { role: 'user', content: 'Weather in Paris?' },
      { role: 'assistant', content: null, tool_calls: [askedCall] },
      { role: 'tool', tool_call_id: 'call_w', content: '{"sky":"sunny"}' },
    ]);
    expect((await session()).body.messages.map((m: { content: string }) => m.content)).toEqual([
      'Sunny in Paris',
      'Weather in Paris?',
    ]);
  });

  it('streamed: the calls come as one chunk of tool_calls, then finish_reason "tool_calls"', async () => {
    const agentId = await agent({ features: [] });
    llm.script({ body: openAiToolCallReply('call_w', 'get_weather', { city: 'Paris' }) });
    const stream = await client(agentId).chat.completions.create({
      model: 'm',
      messages: [user('Weather in Paris?')],
      tools: [weather],
      stream: true,
    });
    const chunks: OpenAI.Chat.Completions.ChatCompletionChunk[] = [];
    for await (const chunk of stream) chunks.push(chunk);
    expect(chunks.map((c) => [c.choices[0]!.delta, c.choices[0]!.finish_reason])).toEqual([
      [{ role: 'assistant', content: '' }, null],
      [{ tool_calls: [{ index: 0, ...askedCall }] }, null],
      [{}, 'tool_calls'],
    ]);
  });

  it('tool_choice: none offers them not; required and a named function reach the provider on the first call', async () => {
    const agentId = await agent({ features: [] });
    const c = client(agentId);
    await c.chat.completions.create({ model: 'm', messages: [user('Hi')], tools: [weather], tool_choice: 'none' });
    expect(lastSent().tools).toBeUndefined();
    llm.script({ body: openAiToolCallReply('call_w', 'get_weather', { city: 'Paris' }) });
    await c.chat.completions.create({ model: 'm', messages: [user('Hi')], tools: [weather], tool_choice: 'required' });
    expect(lastSent().tool_choice).toBe('required');
    llm.script({ body: openAiToolCallReply('call_w', 'get_weather', { city: 'Paris' }) });
    const named = { type: 'function' as const, function: { name: 'get_weather' } };
    await c.chat.completions.create({ model: 'm', messages: [user('Hi')], tools: [weather], tool_choice: named });
    expect(lastSent().tool_choice).toEqual(named);
  });

  refusesBadToolConversations();
});

function refusesBadToolConversations(): void {
  it('refuses what cannot be a tool conversation, with the place it is wrong (422) and without calling the model', async () => {
    const agentId = await agent({ tools: ['openapi-pets-getPet'], features: [] });
    const before = llm.requests.length;
    const call = { role: 'assistant', content: null, tool_calls: [askedCall] };
    const cases: [unknown, (string | number)[]][] = [
      [
        { messages: [user('x'), call, { role: 'tool', content: 'r' }], tools: [weather] },
        ['body', 'messages', 2, 'tool_call_id'],
      ],
      [
        { messages: [user('x'), call, { role: 'tool', tool_call_id: 'call_other', content: 'r' }], tools: [weather] },
        ['body', 'messages', 2, 'tool_call_id'],
      ],
      [
        {
          messages: [user('x'), { role: 'assistant', content: 'y' }, { role: 'tool', tool_call_id: 'c', content: 'r' }],
        },
        ['body', 'messages', 1, 'role'],
      ],
      [{ messages: [{ ...user('x'), tool_calls: [askedCall] }] }, ['body', 'messages', 0, 'tool_calls']],
      [{ messages: [user('x'), call] }, ['body', 'messages', 1, 'role']],
      [
        { messages: [user('x')], tools: [{ type: 'function', function: { name: 'openapi-pets-getPet' } }] },
        ['body', 'tools', 0, 'function', 'name'],
      ],
      [{ messages: [user('x')], tools: [weather, weather] }, ['body', 'tools', 1, 'function', 'name']],
      [
        { messages: [user('x')], tools: [{ type: 'function', function: { name: 'bad name' } }] },
        ['body', 'tools', 0, 'function', 'name'],
      ],
      [{ messages: [user('x')], tools: [{ type: 'code_interpreter' }] }, ['body', 'tools', 0, 'type']],
      [
        { messages: [user('x')], tools: [weather], tool_choice: { type: 'function', function: { name: 'other' } } },
        ['body', 'tool_choice', 'function', 'name'],
      ],
      [{ messages: [user('x')], tool_choice: 'sometimes' }, ['body', 'tool_choice']],
    ];
    for (const [body, loc] of cases) {
      const res = await request(t.app)
        .post(`/v3/inference/${agentId}/chat/completions`)
        .set('x-api-key', alice)
        .send(body as object);
      expect([res.status, res.body.detail?.[0]?.loc]).toEqual([422, loc]);
    }
    expect(llm.requests.length).toBe(before);
  });
}
