/**
 * POST /v3/inference/{agent_id}/chat/completions through the official `openai` client, pointed at the real agent app
 * (base URL `<app>/v3/inference/<agent_id>`, our API key as its key): plain answers, usage, keys and owners, the
 * request's context and settings, and memory across calls. The stack: chat-completions-fixture.ts.
 */
import OpenAI from 'openai';
import request from 'supertest';

import { agent, alice, bob, client, lastSent, llm, t, useCompletionsStack } from './chat-completions-fixture';
import { failure, inSession, user, type Sent } from './chat-completions-messages';

useCompletionsStack();

describe('plain answers', () => {
  it('answers in OpenAI’s shape with usage, the requested model echoed, and the turn stored in its session', async () => {
    const agentId = await agent();
    const { data, response } = await client(agentId)
      .chat.completions.create({ model: 'gpt-4o', messages: [user('Hi')] })
      .withResponse();
    expect(data).toEqual({
      id: expect.stringMatching(/^chatcmpl-[0-9a-f]{32}$/),
      object: 'chat.completion',
      created: expect.any(Number),
      model: 'gpt-4o',
      choices: [
        {
          index: 0,
          message: { role: 'assistant', content: 'echo: Hi', refusal: null },
          logprobs: null,
          finish_reason: 'stop',
        },
      ],
      usage: { prompt_tokens: 11, completion_tokens: 7, total_tokens: 18 },
      session_id: data.id,
    });
    expect(Number.isInteger(data.created)).toBe(true);
    expect(response.headers.get('x-session-id')).toBe(data.id);
    // The agent decides its model and prompt.
    expect(lastSent().model).toBe('gpt-4o-mini');
    expect(lastSent().messages).toEqual([
      { role: 'system', content: 'You are helpful.' },
      { role: 'user', content: 'Hi' },
    ]);
    const stored = await request(t.app).get(`/v3/inference/sessions/${data.id}/messages`).set('x-api-key', alice);
    expect(stored.body.messages.map((m: { content: string }) => m.content)).toEqual(['echo: Hi', 'Hi']);
  });

  it('names the agent’s model when the request names none; text parts are joined', async () => {
    const agentId = await agent();
    const res = await request(t.app)
      .post(`/v3/inference/${agentId}/chat/completions`)
      .set('authorization', `Bearer ${alice}`)
      .send({
        messages: [
          {
            role: 'user',
            content: [
              { type: 'text', text: 'one' },
              { type: 'text', text: 'two' },
            ],
          },
        ],
      });
    expect(res.status).toBe(200);
    expect(res.body.model).toBe('gpt-4o-mini');
    expect(res.body.choices[0].message.content).toBe('echo: one\ntwo');
  });

  it('takes the key as x-api-key too, and refuses a missing, malformed or other scheme’s key with 403', async () => {
    const agentId = await agent();
    const path = `/v3/inference/${agentId}/chat/completions`;
    const body = { model: 'm', messages: [user('Hi')] };
    expect((await request(t.app).post(path).set('x-api-key', alice).send(body)).status).toBe(200);
    const missing = await request(t.app).post(path).send(body);
    const keyError = (message: string) => ({
      detail: message,
      error: { message, type: 'authentication_error', param: null, code: null },
    });
    expect([missing.status, missing.body]).toEqual([403, keyError('API key missing')]);
    const basic = await request(t.app).post(path).set('authorization', `Basic ${alice}`).send(body);
    expect([basic.status, basic.body]).toEqual([403, keyError('API key missing')]);
    const err = await failure(client(agentId, 'sk_not-a-key').chat.completions.create(body));
    // The client's exception says why (OpenAI's `error` object beside the contract's `detail`).
    expect([err.status, err.message]).toEqual([403, '403 Invalid Permission']);
    // Bearer is this route's only: elsewhere the key is x-api-key.
    const elsewhere = await request(t.app).get('/v3/agents/').set('authorization', `Bearer ${alice}`);
    expect(elsewhere.status).toBe(403);
  });

  it('another owner’s agent, or an unknown one, is 404 (a NotFoundError of the client)', async () => {
    const agentId = await agent();
    const theirs = await failure(client(agentId, bob).chat.completions.create({ model: 'm', messages: [user('x')] }));
    expect(theirs.status).toBe(404);
    expect(theirs).toBeInstanceOf(OpenAI.NotFoundError);
    const before = llm.requests.length;
    const res = await request(t.app)
      .post('/v3/inference/999999999/chat/completions')
      .set('x-api-key', alice)
      .send({ model: 'm', messages: [user('x')] });
    expect([res.status, res.body.detail]).toEqual([404, 'Agent not found']);
    expect(theirs.message).toBe('404 Agent not found');
    expect(llm.requests.length).toBe(before);
  });

  it('a provider failure is 502 in the contract’s shape', async () => {
    const agentId = await agent();
    llm.script({ status: 400, body: { error: { message: 'model not found' } } });
    const res = await request(t.app)
      .post(`/v3/inference/${agentId}/chat/completions`)
      .set('x-api-key', alice)
      .send({ model: 'm', messages: [user('x')] });
    expect(res.status).toBe(502);
    expect(res.body.detail).toMatch(/^LLM provider error: /);
    expect(res.body.error).toEqual({ message: res.body.detail, type: 'server_error', param: null, code: null });
  });
});

describe('the request’s context and settings', () => {
  it('adds system messages after the agent’s prompt and sends earlier turns as history instead of stored memory', async () => {
    const agentId = await agent({ additional_model_params: { max_tokens: 50 } });
    const c = client(agentId);
    await c.chat.completions.create(inSession('ctx', { model: 'm', messages: [user('stored turn')] }));
    await c.chat.completions.create(
      inSession('ctx', {
        model: 'm',
        temperature: 0.2,
        top_p: 0.5,
        max_tokens: 500,
        messages: [
          { role: 'system', content: 'Answer in French.' },
          { role: 'developer', content: 'Be brief.' },
          user('earlier question'),
          { role: 'assistant', content: 'earlier answer' },
          user('new question'),
        ],
      }),
    );
    const sent = lastSent();
    expect(sent.messages as Sent).toEqual([
      { role: 'system', content: 'You are helpful.\n\nAnswer in French.\n\nBe brief.' },
      { role: 'user', content: 'earlier question' },
      { role: 'assistant', content: 'earlier answer' },
      { role: 'user', content: 'new question' },
    ]);
    expect([sent.temperature, sent.top_p, sent.max_tokens]).toEqual([0.2, 0.5, 50]);
    const smaller = await c.chat.completions.create({ model: 'm', max_completion_tokens: 20, messages: [user('q')] });
    expect(smaller.choices[0]!.message.content).toBe('echo: q');
    expect(lastSent().max_tokens).toBe(20);
    // The agent's own settings when the request names none.
    expect([lastSent().temperature, lastSent().top_p]).toEqual([0.7, 0.9]);
  });

  it('parameters it does not act on are accepted: seed, stop, logprobs, user, parallel_tool_calls dropped', async () => {
    const agentId = await agent();
    const res = await client(agentId).chat.completions.create({
      model: 'm',
      messages: [user('Hi')],
      seed: 7,
      stop: ['x'],
      logprobs: true,
      user: 'end-user-1',
      presence_penalty: 0.1,
      parallel_tool_calls: false,
    });
    expect(res.choices[0]!.message.content).toBe('echo: Hi');
    const sent = lastSent();
    for (const field of ['tools', 'seed', 'stop', 'logprobs', 'user', 'presence_penalty', 'parallel_tool_calls'])
      expect(sent[field]).toBeUndefined();
  });

  it('finish_reason is "length" when the provider cut the answer at the token limit, plain and streamed', async () => {
    const agentId = await agent({ features: [] });
    llm.script({
      body: {
        choices: [{ index: 0, message: { role: 'assistant', content: 'Once upon a' }, finish_reason: 'length' }],
        usage: { prompt_tokens: 5, completion_tokens: 3, total_tokens: 8 },
      },
    });
    const plain = await client(agentId).chat.completions.create({
      model: 'm',
      max_tokens: 3,
      messages: [user('A tale')],
    });
    expect([plain.choices[0]!.message.content, plain.choices[0]!.finish_reason]).toEqual(['Once upon a', 'length']);
    llm.script({ stream: ['Once', ' upon'], truncated: true });
    const stream = await client(agentId).chat.completions.create({
      model: 'm',
      messages: [user('A tale')],
      stream: true,
    });
    const reasons: (string | null)[] = [];
    for await (const chunk of stream) reasons.push(chunk.choices[0]?.finish_reason ?? null);
    expect(reasons).toEqual([null, null, null, 'length']);
  });
});

describe('memory across calls', () => {
  it('MEMORY reads the session named by session_id or x-session-id when the request carries only the new message', async () => {
    const agentId = await agent();
    const c = client(agentId);
    await c.chat.completions.create(inSession('mem-1', { model: 'm', messages: [user('My name is Ann')] }));
    await c.chat.completions.create(inSession('mem-1', { model: 'm', messages: [user('Who am I?')] }));
    expect(lastSent().messages as Sent).toEqual([
      { role: 'system', content: 'You are helpful.' },
      { role: 'user', content: 'My name is Ann' },
      { role: 'assistant', content: 'echo: My name is Ann' },
      { role: 'user', content: 'Who am I?' },
    ]);
    const { response } = await c.chat.completions
      .create({ model: 'm', messages: [user('Again?')] }, { headers: { 'x-session-id': 'mem-1' } })
      .withResponse();
    expect(response.headers.get('x-session-id')).toBe('mem-1');
    expect((lastSent().messages as Sent).map((m) => m.content)).toEqual([
      'You are helpful.',
      'My name is Ann',
      'echo: My name is Ann',
      'Who am I?',
      'echo: Who am I?',
      'Again?',
    ]);
    // Without a session, each call is a new one: nothing of mem-1 is read.
    await c.chat.completions.create({ model: 'm', messages: [user('Fresh')] });
    expect((lastSent().messages as Sent).map((m) => m.content)).toEqual(['You are helpful.', 'Fresh']);
  });
});
