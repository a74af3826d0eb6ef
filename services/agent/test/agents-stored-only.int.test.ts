/**
 * Contract §7: the fields the hosted product documents on agents, which this platform stores and returns but does not
 * act on (`managed_agents`, `a2a_tools`, `voice_config`, ...): kept exactly as sent, returned by GET, replaced by
 * PUT /v3/agents/{id} and merged by PUT of a single-task agent as the other fields are, bounded, and carried through a
 * run as one string.
 */
import request from 'supertest';

import { createAgentRepository } from '../src/agents/agent.repository';
import { MAX_STORED_ONLY_ITEMS, STORED_ONLY_LIMITS } from '../src/agents/agent.schemas';
import { STORED_ONLY_FIELDS } from '../src/agents/agent.types';
import { agentBody } from './helpers';
import { startInferenceFixture, type InferenceFixture } from './inference-fixture';

let f: InferenceFixture;
let alice: string;
let bob: string;

beforeAll(async () => {
  f = await startInferenceFixture();
  alice = await f.t.dbs.mintKey({ user_id: 'alice', org_id: 'acme' });
  bob = await f.t.dbs.mintKey({ user_id: 'bob', org_id: 'acme' });
});
afterAll(() => f.close());

/** Every stored-only field in the shapes the hosted product's clients send (its MCP server's update tool). */
const HOSTED = {
  managed_agents: [
    { id: '68a1f0c2e4b0a1b2c3d4e5f6', name: 'Researcher', usage_description: 'Looks things up' },
    { id: '68a1f0c2e4b0a1b2c3d4e5f7', name: 'Writer' },
  ],
  a2a_tools: [
    {
      base_url: 'https://a2a.example.com',
      agent_name: 'billing',
      agent_card_path: '/.well-known/agent.json',
      auth_type: 'bearer',
      credential_id: 'cred-1',
    },
  ],
  voice_config: { initiator: 'agent', message: 'Hello!', language: 'en-US' },
  file_output: true,
  disable_artifacts: false,
  image_output_config: { model: 'gpt-image-1', credential_id: 'lyzr_openai' },
  git_agent: { repo: 'acme/site', branch: 'main', settings: { auto_pr: true } },
  proxy_config: { url: 'http://proxy.internal:3128', no_proxy: ['localhost'] },
  skills_catalog: ['skill-pdf', 'skill-sql'],
  mcp_resources: [{ server_id: 'srv-1', resource_uri: 'file:///docs/readme.md' }],
  mcp_prompts: [{ server_id: 'srv-1', prompt_name: 'summarize', variables: { tone: 'brief', max: 3 } }],
};
const UNSET = Object.fromEntries(STORED_ONLY_FIELDS.map((k) => [k, null]));

const app = () => f.t.app;
const post = (key: string, body: object, path = '/v3/agents/') =>
  request(app()).post(path).set('x-api-key', key).send(body);
const get = (key: string, id: string) => request(app()).get(`/v3/agents/${id}`).set('x-api-key', key);
const put = (key: string, path: string, body: object) => request(app()).put(path).set('x-api-key', key).send(body);
const createAgent = async (body: object) => {
  const res = await post(alice, body);
  expect(res.status).toBe(201);
  return res.body.agent_id as string;
};
const storedOnlyOf = (agent: Record<string, unknown>) =>
  Object.fromEntries(STORED_ONLY_FIELDS.map((k) => [k, agent[k]]));

describe('POST and GET /v3/agents', () => {
  it('keeps every stored-only field exactly as sent, and still drops unknown fields', async () => {
    const id = await createAgent(agentBody({ ...HOSTED, surprise: 'dropped', hosted_only_extra: { a: 1 } }));
    const read = await get(alice, id);
    expect(read.status).toBe(200);
    expect(storedOnlyOf(read.body)).toEqual(HOSTED);
    expect(read.body).not.toHaveProperty('surprise');
    expect(read.body).not.toHaveProperty('hosted_only_extra');
    // The list keeps its documented items.
    const list = await request(app()).get('/v3/agents/').set('x-api-key', alice);
    expect(list.body.agents).toContainEqual({
      id,
      agent_id: id,
      name: 'Support bot',
      description: 'Answers questions',
    });
  });

  it('returns them as null on an agent that never had them, and an explicit null as null', async () => {
    const id = await createAgent(agentBody({ file_output: null, voice_config: null }));
    expect(storedOnlyOf((await get(alice, id)).body)).toEqual(UNSET);
  });

  it('keeps keys a document store refuses and keys beyond the documented ones, in nested objects', async () => {
    const odd = {
      voice_config: { $ref: '#/x', 'a.b': { 'c.d': [1, 'two', null, { e: false }] }, '': 'empty key' },
      managed_agents: [{ id: 'a', name: 'b', usage_description: null, role: 'planner', weight: 0.5 }],
      mcp_prompts: [{ server_id: 's', prompt_name: 'p', variables: { $where: 'x', nested: { deeper: [[1]] } } }],
    };
    const id = await createAgent(agentBody(odd));
    expect((await get(alice, id)).body).toMatchObject(odd);
  });

  it("are the owner's only: another user sees 404", async () => {
    const id = await createAgent(agentBody(HOSTED));
    expect((await get(bob, id)).status).toBe(404);
  });
});

describe('PUT', () => {
  it('PUT /v3/agents/{id} replaces them as it replaces every field: a fetched record sent back keeps them', async () => {
    const id = await createAgent(agentBody(HOSTED));
    // The hosted product's clients update by fetching the agent, changing some fields and sending it all back.
    const fetched = (await get(alice, id)).body as Record<string, unknown>;
    const changed = { ...fetched, file_output: false, skills_catalog: ['skill-pdf'] };
    expect((await put(alice, `/v3/agents/${id}`, changed)).status).toBe(200);
    expect(storedOnlyOf((await get(alice, id)).body)).toEqual({
      ...HOSTED,
      file_output: false,
      skills_catalog: ['skill-pdf'],
    });

    // A body without them clears them, as it clears every other optional field it leaves out.
    expect((await put(alice, `/v3/agents/${id}`, agentBody({ voice_config: { language: 'fr' } }))).status).toBe(200);
    expect(storedOnlyOf((await get(alice, id)).body)).toEqual({ ...UNSET, voice_config: { language: 'fr' } });
  });

  it('PUT of a single-task agent merges: fields not sent keep their values, an explicit null clears one', async () => {
    const created = await post(
      alice,
      { ...agentBody(HOSTED), agent_role: 'Helper' },
      '/v3/agents/template/single-task',
    );
    expect(created.status).toBe(201);
    const id = String(created.body.id);
    const path = `/v3/agents/template/single-task/${id}`;
    const merged = await put(alice, path, { a2a_tools: [], proxy_config: null, git_agent: { repo: 'acme/other' } });
    expect(merged.status).toBe(200);
    const read = await get(alice, id);
    expect(storedOnlyOf(read.body)).toEqual({
      ...HOSTED,
      a2a_tools: [],
      proxy_config: null,
      git_agent: { repo: 'acme/other' },
    });
    expect(read.body.agent_role).toBe('Helper');
    // A PUT of other fields leaves them all as they are.
    expect((await put(alice, path, { agent_role: 'Other' })).status).toBe(200);
    expect(storedOnlyOf((await get(alice, id)).body)).toEqual(storedOnlyOf(read.body));
  });
});

describe('limits and types (422 at the field)', () => {
  const refused = async (body: Record<string, unknown>, loc: (string | number)[], type: string) => {
    const res = await post(alice, agentBody(body));
    expect(res.status).toBe(422);
    expect(res.body.detail).toContainEqual(expect.objectContaining({ loc: ['body', ...loc], type }));
  };

  it(`a field longer than ${STORED_ONLY_LIMITS.maxChars} characters as JSON`, async () => {
    const text = (n: number) => 'x'.repeat(n);
    // `{"note":"…"}` is 11 characters around the text: at the limit it is stored, one past it is refused.
    const fits = await post(alice, agentBody({ voice_config: { note: text(STORED_ONLY_LIMITS.maxChars - 11) } }));
    expect(fits.status).toBe(201);
    await refused(
      { voice_config: { note: text(STORED_ONLY_LIMITS.maxChars - 10) } },
      ['voice_config'],
      'json_too_long',
    );
  });

  it(`a field nested deeper than ${STORED_ONLY_LIMITS.maxDepth} levels`, async () => {
    const nest = (levels: number): unknown => (levels === 1 ? {} : { in: nest(levels - 1) });
    expect((await post(alice, agentBody({ git_agent: nest(STORED_ONLY_LIMITS.maxDepth) }))).status).toBe(201);
    await refused({ git_agent: nest(STORED_ONLY_LIMITS.maxDepth + 1) }, ['git_agent'], 'json_too_deep');
  });

  it(`a list longer than ${MAX_STORED_ONLY_ITEMS} entries`, async () => {
    const skills = (n: number) => Array.from({ length: n }, (_, i) => `s${i}`);
    expect((await post(alice, agentBody({ skills_catalog: skills(MAX_STORED_ONLY_ITEMS) }))).status).toBe(201);
    await refused({ skills_catalog: skills(MAX_STORED_ONLY_ITEMS + 1) }, ['skills_catalog'], 'too_long');
  });

  it('a value of the wrong type, also inside a documented entry', async () => {
    await refused({ file_output: 'yes' }, ['file_output'], 'bool_type');
    await refused({ voice_config: ['not', 'an', 'object'] }, ['voice_config'], 'dict_type');
    await refused({ managed_agents: [{ id: 7, name: 'x' }] }, ['managed_agents', 0, 'id'], 'string_type');
    await refused({ mcp_prompts: [{ variables: 'x' }] }, ['mcp_prompts', 0, 'variables'], 'dict_type');
  });

  it('on the merge route too', async () => {
    const created = await post(alice, agentBody(), '/v3/agents/template/single-task');
    const res = await put(alice, `/v3/agents/template/single-task/${created.body.id}`, {
      disable_artifacts: 3,
    });
    expect(res.status).toBe(422);
    expect(res.body.detail[0].loc).toEqual(['body', 'disable_artifacts']);
  });
});

describe('storage and runs', () => {
  it('stores each as JSON text and gives a run one string for all of them; a chat runs as before', async () => {
    const credentialId = await f.credential(alice, 'openai');
    const id = await createAgent(
      agentBody({ ...HOSTED, llm_credential_id: credentialId, features: [], system_prompt: 'Be brief.' }),
    );
    const doc = await f.t.dbs.conn.collection('agents').findOne({ _id: Number(id) as never });
    expect(doc!.managed_agents_json).toBe(JSON.stringify(HOSTED.managed_agents));
    expect(doc!.file_output_json).toBe('true');
    expect(doc).not.toHaveProperty('managed_agents');

    const record = await createAgentRepository(f.t.dbs.conn).get({ user_id: 'alice', org_id: 'acme' }, Number(id));
    expect(typeof record!.stored_only_json).toBe('string');
    expect(JSON.parse(record!.stored_only_json)).toEqual(HOSTED);
    expect(Object.keys(record!).filter((k) => (STORED_ONLY_FIELDS as readonly string[]).includes(k))).toEqual([]);

    const chat = await f.chat(alice, { agent_id: id, session_id: 'stored-only', message: 'hi' });
    expect(chat.status).toBe(200);
  });
});
