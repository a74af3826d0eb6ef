import { ANTHROPIC_KEY, OPENAI_KEY, startInferenceFixture, type InferenceFixture } from './inference-fixture';

let f: InferenceFixture;
let alice: string;

beforeAll(async () => {
  f = await startInferenceFixture();
  alice = await f.t.dbs.mintKey({ user_id: 'alice', org_id: 'acme' });
});
afterAll(() => f.close());

const jsonSchemaFormat = {
  type: 'json_schema',
  json_schema: {
    name: 'answer',
    strict: true,
    schema: { type: 'object', properties: { answer: { type: 'string' } }, required: ['answer'] },
  },
};

describe('OpenAI chat-completions protocol', () => {
  it('sends model, system prompt with variables, the message, sampling, response_format and the bearer key', async () => {
    const credential = await f.credential(alice, 'openai');
    const agentId = await f.agent(alice, {
      llm_credential_id: credential,
      system_prompt: 'You are {{role}} for {{ company }}. Keep {literal} braces and {{unknown}}.',
      temperature: 0.2,
      top_p: 0.8,
      response_format: jsonSchemaFormat,
      additional_model_params: { seed: 7, max_tokens: 300, model: 'overridden?' },
    });
    const res = await f.chat(alice, {
      agent_id: agentId,
      session_id: 's-openai',
      message: 'Hello there',
      system_prompt_variables: { role: 'a support agent', company: 'Acme' },
      user_id: 'mallory',
    });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ response: 'echo: Hello there', session_id: 's-openai', agent_id: agentId });

    const sent = f.openai.requests.at(-1)!;
    expect(sent.method).toBe('POST');
    expect(sent.url).toBe('/v1/chat/completions');
    expect(sent.headers.authorization).toBe(`Bearer ${OPENAI_KEY}`);
    expect(sent.headers['content-type']).toMatch(/^application\/json/);
    expect(sent.json).toEqual({
      model: 'gpt-4o-mini',
      messages: [
        { role: 'system', content: 'You are a support agent for Acme. Keep {literal} braces and {{unknown}}.' },
        { role: 'user', content: 'Hello there' },
      ],
      temperature: 0.2,
      top_p: 0.8,
      response_format: jsonSchemaFormat,
      seed: 7,
      max_tokens: 300,
      stream: false,
    });
  });

  it('matches provider_id case-insensitively, accepts a numeric agent_id, and leaves out a text response_format', async () => {
    const credential = await f.credential(alice, 'openai');
    const agentId = await f.agent(alice, {
      llm_credential_id: credential,
      provider_id: 'OPENAI',
      response_format: { type: 'text' },
      system_prompt: null,
      temperature: null,
      top_p: null,
    });
    const res = await f.chat(alice, { agent_id: Number(agentId), session_id: 's-num', message: 'hi' });
    expect(res.status).toBe(200);
    expect(res.body.agent_id).toBe(agentId);
    expect(f.openai.bodies().at(-1)).toEqual({
      model: 'gpt-4o-mini',
      messages: [{ role: 'user', content: 'hi' }],
      stream: false,
    });
  });

  it('composes a single-task agent’s role, instructions and examples into labelled sections of the system prompt', async () => {
    const credential = await f.credential(alice, 'openai');
    const agentId = await f.agent(
      alice,
      {
        name: 'Summarizer',
        agent_role: 'You summarize {{kind}} texts.',
        agent_instructions: 'Be brief.',
        examples: 'In: long text\nOut: short text',
        provider_id: 'openai',
        model: 'gpt-4o-mini',
        llm_credential_id: credential,
        temperature: 0,
        top_p: 1,
        features: [],
      },
      true,
    );
    const res = await f.chat(alice, {
      agent_id: agentId,
      session_id: 's-st',
      message: 'Text',
      system_prompt_variables: { kind: 'legal' },
    });
    expect(res.status).toBe(200);
    expect(f.openai.bodies().at(-1)!.messages).toEqual([
      {
        role: 'system',
        content:
          'Role:\nYou summarize legal texts.\n\nInstructions:\nBe brief.\n\nExamples:\nIn: long text\nOut: short text',
      },
      { role: 'user', content: 'Text' },
    ]);
  });
});

describe('Anthropic Messages API', () => {
  it('sends x-api-key, anthropic-version, a top-level system, max_tokens and temperature (not top_p as well)', async () => {
    const credential = await f.credential(alice, 'anthropic');
    const agentId = await f.agent(alice, {
      llm_credential_id: credential,
      provider_id: 'Anthropic',
      model: 'claude-sonnet-4-5',
      system_prompt: 'You are {{role}}.',
      temperature: 0.4,
      top_p: 0.9,
    });
    const res = await f.chat(alice, {
      agent_id: agentId,
      session_id: 's-anthropic',
      message: 'Bonjour',
      system_prompt_variables: { role: 'French' },
    });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ response: 'echo: Bonjour', session_id: 's-anthropic', agent_id: agentId });
    const sent = f.anthropic.requests.at(-1)!;
    expect(sent.url).toBe('/v1/messages');
    expect(sent.headers['x-api-key']).toBe(ANTHROPIC_KEY);
    expect(sent.headers['anthropic-version']).toBe('2023-06-01');
    expect(sent.headers.authorization).toBeUndefined();
    expect(sent.json).toEqual({
      model: 'claude-sonnet-4-5',
      system: 'You are French.',
      messages: [{ role: 'user', content: 'Bonjour' }],
      max_tokens: 1024,
      temperature: 0.4,
      stream: false,
    });
  });

  it('takes max_tokens from additional_model_params, sends top_p alone when there is no temperature, asks for JSON and checks it', async () => {
    const credential = await f.credential(alice, 'anthropic');
    const agentId = await f.agent(alice, {
      llm_credential_id: credential,
      provider_id: 'anthropic',
      model: 'claude-haiku-4-5',
      system_prompt: null,
      temperature: null,
      top_p: 0.5,
      response_format: jsonSchemaFormat,
      additional_model_params: { max_tokens: 64, top_k: 5 },
    });
    f.anthropic.script({
      body: {
        content: [{ type: 'text', text: '```json\n{"answer":"42"}\n```' }],
        usage: { input_tokens: 1, output_tokens: 2 },
      },
    });
    const res = await f.chat(alice, { agent_id: agentId, session_id: 's-json', message: 'Answer?' });
    expect(res.status).toBe(200);
    expect(res.body.response).toBe('{"answer":"42"}');
    const sent = f.anthropic.bodies().at(-1)!;
    expect(sent).toMatchObject({ max_tokens: 64, top_k: 5, top_p: 0.5 });
    expect(sent).not.toHaveProperty('temperature');
    expect(sent).not.toHaveProperty('response_format');
    expect(sent.system).toContain('Reply with a single JSON object');
    expect(sent.system).toContain(JSON.stringify(jsonSchemaFormat.json_schema.schema));

    f.anthropic.script({ body: { content: [{ type: 'text', text: 'Sure! The answer is 42.' }] } });
    const bad = await f.chat(alice, { agent_id: agentId, session_id: 's-json', message: 'Again?' });
    expect(bad.status).toBe(502);
    expect(bad.body.detail).toBe(
      'LLM provider error: 200 the reply is not valid JSON although the agent asks for JSON',
    );
  });
});

describe('request validation', () => {
  const cases: [string, Record<string, unknown>, string][] = [
    ['agent_id missing', { session_id: 's', message: 'm' }, 'body.agent_id'],
    ['session_id missing', { agent_id: '1', message: 'm' }, 'body.session_id'],
    ['message missing', { agent_id: '1', session_id: 's' }, 'body.message'],
    ['message not a string', { agent_id: '1', session_id: 's', message: 5 }, 'body.message'],
    [
      'variables not an object',
      { agent_id: '1', session_id: 's', message: 'm', system_prompt_variables: 'x' },
      'body.system_prompt_variables',
    ],
    ['agent_id an object', { agent_id: { a: 1 }, session_id: 's', message: 'm' }, 'body.agent_id'],
  ];
  it.each(cases)('%s → 422 naming the field', async (_n, body, loc) => {
    const res = await f.chat(alice, body);
    expect(res.status).toBe(422);
    expect(res.body.detail.map((d: { loc: string[] }) => d.loc.join('.'))).toContain(loc);
  });

  it('an empty message is allowed (a schedule’s default message is "")', async () => {
    const credential = await f.credential(alice, 'openai');
    const agentId = await f.agent(alice, { llm_credential_id: credential });
    const res = await f.chat(alice, { agent_id: agentId, session_id: 's-empty', message: '' });
    expect(res.status).toBe(200);
    expect(res.body.response).toBe('echo: ');
  });
});
