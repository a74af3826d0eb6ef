import request from 'supertest';

import { startInferenceFixture, type InferenceFixture } from './inference-fixture';

let f: InferenceFixture;
let alice: string;

beforeAll(async () => {
  f = await startInferenceFixture();
  alice = await f.t.dbs.mintKey({ user_id: 'alice', org_id: 'acme' });
});
afterAll(() => f.close());

/** An agent body as public clients (SDKs, MCP servers) send it: the agent_* fields, never a system_prompt. */
const publicClientAgent = (over: Record<string, unknown>) => ({
  name: 'Support bot',
  description: null,
  agent_role: 'You are the support agent of {{company}}.',
  agent_goal: 'Resolve {{ customer }}’s ticket.',
  agent_instructions: 'Answer in {{language}}. Keep {literal} braces.',
  agent_context: 'Plan: {{plan}}.',
  agent_output: 'A short answer for {{customer}}.',
  examples: 'Q: Where is my order?\nA: It ships today.',
  tools: [],
  tool_usage_description: '{}',
  tool_configs: [],
  model: 'gpt-4o-mini',
  temperature: 0.7,
  top_p: 0.9,
  features: [],
  managed_agents: [],
  additional_model_params: null,
  response_format: { type: 'text' },
  store_messages: true,
  ...over,
});

/** Stores an agent exactly as given (no defaults merged in); returns its id. */
async function createAgent(body: Record<string, unknown>): Promise<string> {
  const res = await request(f.t.app).post('/v3/agents/').set('x-api-key', alice).send(body);
  if (res.status !== 201) throw new Error(`agent not created: ${res.status} ${res.text}`);
  return res.body.agent_id as string;
}

const EXPECTED = [
  'Role:\nYou are the support agent of Acme.',
  'Goal:\nResolve Ada’s ticket.',
  'Instructions:\nAnswer in French. Keep {literal} braces.',
  'Context:\nPlan: {"tier":"gold","seats":3}.',
  'Expected output:\nA short answer for Ada.',
  'Examples:\nQ: Where is my order?\nA: It ships today.',
].join('\n\n');

const variablesAsObject = { company: 'Acme', customer: 'Ada', language: 'French', plan: { tier: 'gold', seats: 3 } };
const variablesAsList = [
  { name: 'company', value: 'Acme' },
  { name: 'customer', value: 'Ada' },
  { key: 'language', value: 'French' },
  { name: 'plan', value: { tier: 'gold', seats: 3 } },
];

describe('general agent without system_prompt: the system message is built from its fields', () => {
  it.each([
    ['an object of name → value', variablesAsObject],
    ['a list of {name, value} items', variablesAsList],
    ['the JSON text of the list (as multipart clients send it)', JSON.stringify(variablesAsList)],
  ])(
    'OpenAI protocol, variables as %s: one labelled section per field, placeholders filled',
    async (_form, variables) => {
      const agentId = await createAgent(
        publicClientAgent({ provider_id: 'OpenAI', llm_credential_id: await f.credential(alice, 'openai') }),
      );
      const res = await f.chat(alice, {
        agent_id: agentId,
        session_id: 's-public',
        message: 'Hi',
        system_prompt_variables: variables,
      });
      expect(res.status).toBe(200);
      expect(f.openai.bodies().at(-1)!.messages).toEqual([
        { role: 'system', content: EXPECTED },
        { role: 'user', content: 'Hi' },
      ]);
    },
  );

  it.each([
    ['an object', variablesAsObject],
    ['a list', variablesAsList],
  ])('Anthropic, variables as %s: the same text goes in the top-level system field', async (_form, variables) => {
    const agentId = await createAgent(
      publicClientAgent({
        provider_id: 'Anthropic',
        model: 'claude-haiku-4-5',
        llm_credential_id: await f.credential(alice, 'anthropic'),
      }),
    );
    const res = await f.chat(alice, {
      agent_id: agentId,
      session_id: 's-public-a',
      message: 'Bonjour',
      system_prompt_variables: variables,
    });
    expect(res.status).toBe(200);
    const sent = f.anthropic.bodies().at(-1)!;
    expect(sent.system).toBe(EXPECTED);
    expect(sent.messages).toEqual([{ role: 'user', content: 'Bonjour' }]);
  });

  it('leaves out empty, blank and null fields, and keeps unfilled placeholders as written', async () => {
    const agentId = await createAgent(
      publicClientAgent({
        provider_id: 'openai',
        llm_credential_id: await f.credential(alice, 'openai'),
        agent_role: '',
        agent_instructions: '  \n ',
        agent_context: null,
        examples: null,
      }),
    );
    const res = await f.chat(alice, { agent_id: agentId, session_id: 's-partial', message: 'Hi' });
    expect(res.status).toBe(200);
    expect(f.openai.bodies().at(-1)!.messages).toEqual([
      {
        role: 'system',
        content: 'Goal:\nResolve {{ customer }}’s ticket.\n\nExpected output:\nA short answer for {{customer}}.',
      },
      { role: 'user', content: 'Hi' },
    ]);
  });

  it('a non-empty system_prompt wins over the fields; a blank one does not', async () => {
    const credential = await f.credential(alice, 'openai');
    const withPrompt = await createAgent(
      publicClientAgent({
        provider_id: 'openai',
        llm_credential_id: credential,
        system_prompt: 'You are {{company}}’s bot.',
      }),
    );
    await f.chat(alice, {
      agent_id: withPrompt,
      session_id: 's-sp',
      message: 'Hi',
      system_prompt_variables: variablesAsList,
    });
    expect(f.openai.bodies().at(-1)!.messages).toEqual([
      { role: 'system', content: 'You are Acme’s bot.' },
      { role: 'user', content: 'Hi' },
    ]);

    const blankPrompt = await createAgent(
      publicClientAgent({ provider_id: 'openai', llm_credential_id: credential, system_prompt: ' \n' }),
    );
    await f.chat(alice, {
      agent_id: blankPrompt,
      session_id: 's-sp-blank',
      message: 'Hi',
      system_prompt_variables: variablesAsObject,
    });
    expect((f.openai.bodies().at(-1)!.messages as { role: string; content: string }[])[0]).toEqual({
      role: 'system',
      content: EXPECTED,
    });
  });

  agentsWithoutFieldsAndSingleTaskAgents();
});

function agentsWithoutFieldsAndSingleTaskAgents(): void {
  it('an agent with none of the fields gets no system message at all (none is invented)', async () => {
    const none = {
      agent_role: null,
      agent_goal: null,
      agent_instructions: null,
      agent_context: null,
      agent_output: null,
      examples: null,
    };
    const openaiAgent = await createAgent(
      publicClientAgent({ ...none, provider_id: 'openai', llm_credential_id: await f.credential(alice, 'openai') }),
    );
    expect((await f.chat(alice, { agent_id: openaiAgent, session_id: 's-none', message: 'Hi' })).status).toBe(200);
    expect(f.openai.bodies().at(-1)!.messages).toEqual([{ role: 'user', content: 'Hi' }]);

    const anthropicAgent = await createAgent(
      publicClientAgent({
        ...none,
        provider_id: 'anthropic',
        model: 'claude-haiku-4-5',
        llm_credential_id: await f.credential(alice, 'anthropic'),
      }),
    );
    expect((await f.chat(alice, { agent_id: anthropicAgent, session_id: 's-none-a', message: 'Hi' })).status).toBe(200);
    expect(f.anthropic.bodies().at(-1)).not.toHaveProperty('system');
  });

  it('a single-task agent is composed by the same rule', async () => {
    const res = await request(f.t.app)
      .post('/v3/agents/template/single-task')
      .set('x-api-key', alice)
      .send({
        name: 'Summarizer',
        agent_role: 'You summarize {{kind}} texts.',
        agent_goal: 'Short summaries.',
        agent_instructions: 'Be brief.',
        examples: 'In: long\nOut: short',
        provider_id: 'openai',
        model: 'gpt-4o-mini',
        llm_credential_id: await f.credential(alice, 'openai'),
      });
    expect(res.status).toBe(201);
    await f.chat(alice, {
      agent_id: res.body.id,
      session_id: 's-st2',
      message: 'Text',
      system_prompt_variables: [{ name: 'kind', value: 'legal' }],
    });
    expect((f.openai.bodies().at(-1)!.messages as { role: string; content: string }[])[0]?.content).toBe(
      'Role:\nYou summarize legal texts.\n\nGoal:\nShort summaries.\n\nInstructions:\nBe brief.\n\nExamples:\nIn: long\nOut: short',
    );
  });
}

describe('system_prompt_variables validation', () => {
  const cases: [string, unknown, string, string][] = [
    ['a number', 5, 'body.system_prompt_variables', 'alternatives_types'],
    ['a boolean', true, 'body.system_prompt_variables', 'alternatives_types'],
    ['text that is not JSON', 'role=x', 'body.system_prompt_variables', 'value_error'],
    ['JSON text of a number', '42', 'body.system_prompt_variables', 'value_error'],
    ['a list item that is not an object', ['role'], 'body.system_prompt_variables.0', 'dict_type'],
    ['a list item without name or key', [{ value: 'x' }], 'body.system_prompt_variables.0', 'object_missing'],
    [
      'a list item with both name and key',
      [{ name: 'a', key: 'b', value: 'x' }],
      'body.system_prompt_variables.0',
      'object_xor',
    ],
    [
      'more than 200 variables',
      Array.from({ length: 201 }, (_, i) => ({ name: `v${i}`, value: i })),
      'body.system_prompt_variables',
      'too_long',
    ],
  ];
  it.each(cases)('%s → 422 naming the field', async (_n, variables, loc, type) => {
    const res = await f.chat(alice, {
      agent_id: '1',
      session_id: 's',
      message: 'm',
      system_prompt_variables: variables,
    });
    expect(res.status).toBe(422);
    expect(res.body.detail).toEqual([
      { loc: loc.split('.').map((p) => (/^\d+$/.test(p) ? Number(p) : p)), msg: expect.any(String), type },
    ]);
  });

  it.each([
    ['null', null],
    ['an empty object', {}],
    ['an empty list', []],
    ['empty text', ''],
    ['the multipart default "{}"', '{}'],
  ])('%s means no variables', async (_n, variables) => {
    const agentId = await createAgent(
      publicClientAgent({
        provider_id: 'openai',
        llm_credential_id: await f.credential(alice, 'openai'),
        agent_goal: null,
      }),
    );
    const res = await f.chat(alice, {
      agent_id: agentId,
      session_id: 's-empty-vars',
      message: 'Hi',
      system_prompt_variables: variables,
    });
    expect(res.status).toBe(200);
    expect((f.openai.bodies().at(-1)!.messages as { content: string }[])[0]?.content).toContain(
      'Role:\nYou are the support agent of {{company}}.',
    );
  });
});
