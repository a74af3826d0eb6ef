import { randomBytes } from 'node:crypto';
import type { Express } from 'express';
import request from 'supertest';

import { createApiKeyAuth, createApiKeyRepository } from '@platform/auth';
import { pingMongo, syncIndexes } from '@platform/db';
import { createOutboundClient, type OutboundClient } from '@platform/outbound';
import { createSecretBox } from '@platform/secrets';
import {
  captureLogger,
  createTestDatabases,
  freePort,
  openAiTextReply,
  startResponderLlm,
  type ResponderLlm,
  type TestDatabases,
} from '@platform/testing';

import { ALICE, BOB, INTERNAL_SECRET, startGraphStack, type GraphStack } from '../../graph/test/helpers';
import { startTestSite, type TestSite } from '../../graph/test/site';
import { createAgentRepository } from '../src/agents/agent.repository';
import type { AgentInput, Owner } from '../src/agents/agent.types';
import { createApp } from '../src/app';
import { knowledgeSection } from '../src/inference/features/knowledge-base.feature';
import { agentBody } from './helpers';

let s: TestSite;
let g: GraphStack;
let llm: ResponderLlm;
let dbs: TestDatabases;
let outbound: OutboundClient;
let agent: Express;
let alice: string;
let bob: string;
let ragId: string;
/** Alice's configurations holding only the /about page, and only the /team page. */
let aboutRag: string;
let teamRag: string;

/** The provider stand-in answers with the sources it was given: the first "(source: URL)" of its system prompt. */
function answerFromPrompt(body: Record<string, unknown>): unknown {
  const messages = body.messages as { role: string; content: string }[];
  const system = messages.find((m) => m.role === 'system')?.content ?? '';
  const cited = /\[1\] (.*?) \(source: (\S+)\)/.exec(system);
  return openAiTextReply(cited ? `According to [1] ${cited[2]}: ${cited[1]}` : 'I do not know.');
}

/** A RAG configuration of Alice's whose knowledge graph holds the pages crawled from `path`. */
async function crawledRag(path: string, pages: number, depth: number): Promise<string> {
  const id = await g.createRag(g.alice);
  const res = await request(g.app)
    .post(`/v4/knowledge_graph/website/?rag_id=${id}`)
    .set('x-api-key', g.alice)
    .send({ urls: [`${s.site.url}${path}`], max_crawl_pages: pages, max_crawl_depth: depth });
  if (res.status !== 200) throw new Error(`crawl failed: ${res.status} ${res.text}`);
  return id;
}

/** The real agent app on the test's database, asking the rag service at `ragUrl`. */
const agentApp = (ragUrl: string) =>
  createApp({
    logger: captureLogger('agent').logger,
    db: dbs.conn,
    auth: createApiKeyAuth({ keys: createApiKeyRepository(dbs.authConn), cacheTtlMs: 30_000 }),
    box: createSecretBox(randomBytes(32)),
    outbound,
    internalSecret: INTERNAL_SECRET,
    knowledge: { baseUrl: ragUrl, secret: INTERNAL_SECRET, timeoutMs: 5_000 },
    readiness: { mongodb: () => pingMongo(dbs.conn) },
  });

beforeAll(async () => {
  s = await startTestSite({ hugeBytes: 1024 });
  g = await startGraphStack({ allowHosts: `127.0.0.1:${s.site.port}` });
  ragId = await crawledRag('/', 20, 2);
  aboutRag = await crawledRag('/about', 1, 0);
  teamRag = await crawledRag('/team', 1, 0);
  llm = await startResponderLlm('openai', answerFromPrompt);
  dbs = await createTestDatabases('agentkb');
  const ragHost = new URL(g.ragUrl).host;
  outbound = createOutboundClient({ allowHosts: `127.0.0.1:${llm.port},${ragHost}` });
  agent = agentApp(g.ragUrl);
  await syncIndexes(dbs.conn);
  alice = await dbs.mintKey(ALICE);
  bob = await dbs.mintKey(BOB);
});
afterAll(async () => {
  outbound.close();
  await dbs.cleanup();
  await llm.close();
  await g.close();
  await s.close();
});

/** A provider credential of the key's owner that reaches the stand-in LLM. */
async function credentialOf(key: string): Promise<string> {
  const cred = await request(agent)
    .post('/v3/providers/credentials')
    .set('x-api-key', key)
    .send({
      name: 'llm',
      provider_id: 'openai',
      credentials: { api_key: 'sk-proj-KnowledgeBaseTest0123', base_url: llm.baseUrl },
    });
  return cred.body.credential_id as string;
}

/** An agent body whose only feature is KNOWLEDGE_BASE with `config`. */
const kbAgent = (credentialId: string, config: Record<string, unknown>) =>
  agentBody({
    system_prompt: 'You answer questions about Zylotech.',
    llm_credential_id: credentialId,
    features: [{ type: 'KNOWLEDGE_BASE', config, priority: 0 }],
  });

async function agentWith(key: string, config: Record<string, unknown>): Promise<string> {
  const res = await request(agent)
    .post('/v3/agents/')
    .set('x-api-key', key)
    .send(kbAgent(await credentialOf(key), config));
  if (res.status >= 300) throw new Error(`agent not created: ${res.status} ${res.text}`);
  return String(res.body.id ?? res.body.agent_id);
}

/** An agent written straight to the store, as agents saved before features were checked at save time. */
async function storedAgent(key: string, owner: Owner, config: Record<string, unknown>): Promise<string> {
  const input = kbAgent(await credentialOf(key), config) as unknown as AgentInput;
  return String((await createAgentRepository(dbs.conn).create(owner, 'agent', input, new Date())).id);
}

const chat = (key: string, agentId: string, message: string) =>
  request(agent)
    .post('/v3/inference/chat/')
    .set('x-api-key', key)
    .send({ agent_id: agentId, session_id: 'kb', message });
const lastSystemPrompt = () => {
  const bodies = llm.bodies();
  const messages = bodies[bodies.length - 1]!.messages as { role: string; content: string }[];
  return messages.find((m) => m.role === 'system')!.content;
};

describe('KNOWLEDGE_BASE feature', () => {
  it('puts the chunks that match the message into the prompt with their URLs, and the answer cites them', async () => {
    const agentId = await agentWith(alice, { rag_id: ragId, top_k: 2 });
    const res = await chat(alice, agentId, 'Where is the Qorvian Institute located, and who founded Zylotech?');
    expect(res.status).toBe(200);
    const system = lastSystemPrompt();
    expect(system).toMatch(/^You answer questions about Zylotech\./);
    expect(system).toContain(`The Qorvian Institute is located in Lisbon.`);
    expect(system).toContain(`(source: ${s.site.url}/about)`);
    expect(system).toContain('Qorvian Institute is located Lisbon');
    expect(system.match(/^\[\d\] /gm)).toHaveLength(2);
    // Only the crawled site holds this: the provider stand-in answers from its prompt and cites the page.
    expect(res.body.response).toContain(`According to [1] ${s.site.url}/about`);
    expect(res.body.response).toContain('Lisbon');
  });

  it('sends top_k chunks, 5 when the feature names none', async () => {
    const agentId = await agentWith(alice, { rag_id: ragId });
    await chat(alice, agentId, 'lantern Zylotech Glowmaster Hopper Babbage Lovelace Qorvian enormous filler');
    expect(lastSystemPrompt().match(/^\[\d\] /gm)).toHaveLength(5);
  });

  it('leaves the prompt as it is when nothing matches', async () => {
    const agentId = await agentWith(alice, { rag_id: ragId });
    const res = await chat(alice, agentId, 'xylophone quasar');
    expect(res.status).toBe(200);
    expect(lastSystemPrompt()).toBe('You answer questions about Zylotech.');
  });

  it("answers 422 at chat for an agent stored before the save check with another owner's or no rag_id; the provider is not called", async () => {
    const before = llm.requests.length;
    const foreign = await storedAgent(bob, BOB, { rag_id: ragId });
    const res = await chat(bob, foreign, 'Where is the Qorvian Institute located?');
    expect(res.status).toBe(422);
    expect(res.body.detail[0]).toEqual(expect.objectContaining({ loc: ['body', 'agent_id'], type: 'rag_not_found' }));
    const missing = await storedAgent(alice, ALICE, { top_k: 3 });
    expect((await chat(alice, missing, 'hello')).body.detail[0].type).toBe('rag_missing');
    const malformed = await storedAgent(alice, ALICE, { rag_id: '../../v3/rag' });
    expect((await chat(alice, malformed, 'hello')).body.detail[0].type).toBe('rag_not_found');
    expect(llm.requests.length).toBe(before);
  });

  it("takes the hosted product's shape: lyzr_rag.rag_id with params.top_k", async () => {
    const agentId = await agentWith(alice, {
      lyzr_rag: {
        rag_id: ragId,
        rag_name: 'zylotech',
        base_url: 'https://rag.example.invalid',
        params: { top_k: 2, score_threshold: 0, retrieval_type: 'basic' },
      },
      agentic_rag: [],
    });
    const res = await chat(alice, agentId, 'Where is the Qorvian Institute located, and who founded Zylotech?');
    expect(res.status).toBe(200);
    expect(lastSystemPrompt()).toContain('The Qorvian Institute is located in Lisbon.');
    expect(lastSystemPrompt()).toContain(`(source: ${s.site.url}/about)`);
    expect(lastSystemPrompt().match(/^\[\d\] /gm)).toHaveLength(2);
    expect(res.body.response).toContain(`According to [1] ${s.site.url}/about`);
  });

  mergesSeveralRagIds();
  refusesUnusableRagIdsOnSave();

  it('formats facts with their sources', () => {
    const text = knowledgeSection({
      results: [{ text: 'A  b\nc', url: 'https://x/a', title: 't', score: 1 }],
      facts: [{ source: 'Ada', relation: 'FOUNDED', target: 'Zylotech', urls: ['https://x/a'] }],
    });
    expect(text.split('\n').slice(1)).toEqual([
      '[1] A b c (source: https://x/a)',
      'Facts:',
      '- Ada founded Zylotech (source: https://x/a)',
    ]);
  });
});

function mergesSeveralRagIds(): void {
  describe('several rag ids (lyzr_rag, agentic_rag[], oneshot_rag[])', () => {
    const question = 'Qorvian Institute Lisbon, and Grace Hopper lantern engineering team';
    /** What the rag service retrieves for the question from one configuration: [page URL, score] of each chunk. */
    const retrieved = async (id: string) => {
      const res = await request(g.ragApp)
        .get(`/v3/rag/${id}/retrieve/`)
        .query({ query: question, top_k: 5 })
        .set('x-api-key', g.alice);
      expect(res.status).toBe(200);
      return (res.body.results as { url: string; score: number }[]).map((r) => [r.url, r.score] as const);
    };
    const citedUrls = () => [...lastSystemPrompt().matchAll(/^\[\d+\] .* \(source: (\S+)\)$/gm)].map((m) => m[1]);
    let byScore: (readonly [string, number])[];

    beforeAll(async () => {
      byScore = [...(await retrieved(aboutRag)), ...(await retrieved(teamRag))].sort((a, b) => b[1] - a[1]);
      // The question matches a chunk of each page, with different scores.
      expect(new Set(byScore.map(([url]) => url))).toEqual(new Set([`${s.site.url}/about`, `${s.site.url}/team`]));
      expect(byScore[0]![1]).toBeGreaterThan(byScore[byScore.length - 1]![1]);
    });

    it('retrieves from each, merges by score and keeps top_k', async () => {
      const both = await agentWith(alice, { lyzr_rag: { rag_id: teamRag }, agentic_rag: [{ rag_id: aboutRag }] });
      expect((await chat(alice, both, question)).status).toBe(200);
      expect(citedUrls()).toEqual(byScore.map(([url]) => url));
      const best = await agentWith(alice, {
        lyzr_rag: { rag_id: teamRag, params: { top_k: 1 } },
        oneshot_rag: [{ rag_id: aboutRag }],
      });
      await chat(alice, best, question);
      expect(citedUrls()).toEqual([byScore[0]![0]]);
    });

    it('drops results scoring below score_threshold', async () => {
      const [high, low] = [byScore[0]![1], byScore[byScore.length - 1]![1]];
      const middle = await agentWith(alice, {
        lyzr_rag: { rag_id: aboutRag, params: { score_threshold: (high + low) / 2 } },
        agentic_rag: [{ rag_id: teamRag }],
      });
      await chat(alice, middle, question);
      expect(citedUrls()).toEqual(byScore.filter(([, score]) => score >= (high + low) / 2).map(([url]) => url));
      expect(citedUrls().length).toBeLessThan(byScore.length);
      const above = await agentWith(alice, {
        rag_id: aboutRag,
        agentic_rag: [{ rag_id: teamRag }],
        score_threshold: high + 1,
      });
      await chat(alice, above, question);
      expect(lastSystemPrompt()).toBe('You answer questions about Zylotech.');
    });
  });
}

function refusesUnusableRagIdsOnSave(): void {
  describe('saving an agent: every route that takes features refuses a rag id that cannot be used', () => {
    const config0 = ['body', 'features', 0, 'config'];
    const save = (key: string, method: 'post' | 'put', path: string, body: object) =>
      request(agent)[method](path).set('x-api-key', key).send(body);
    const kbBody = (config: Record<string, unknown>, over: Record<string, unknown> = {}) => ({
      ...agentBody({ features: [{ type: 'KNOWLEDGE_BASE', config, priority: 0 }] }),
      ...over,
    });

    it('refuses no rag id, another owner’s, a malformed one and more than 10, each at its feature’s config', async () => {
      const cases: [string, Record<string, unknown>, string][] = [
        [alice, { top_k: 3 }, 'rag_missing'],
        [alice, { lyzr_rag: { rag_name: 'x', params: { top_k: 3 } }, agentic_rag: [{}] }, 'rag_missing'],
        [bob, { rag_id: ragId }, 'rag_not_found'],
        [bob, { lyzr_rag: { rag_id: ragId } }, 'rag_not_found'],
        [bob, { agentic_rag: [{ rag_id: ragId }] }, 'rag_not_found'],
        [alice, { oneshot_rag: [{ rag_id: ragId }, { rag_id: '0123456789abcdef01234567' }] }, 'rag_not_found'],
        [alice, { rag_id: 'not-a-rag-id' }, 'rag_not_found'],
      ];
      for (const [key, config, type] of cases) {
        const res = await save(key, 'post', '/v3/agents/', kbBody(config));
        expect({ config, status: res.status, detail: res.body.detail }).toEqual({
          config,
          status: 422,
          detail: [expect.objectContaining({ loc: config0, type })],
        });
      }
      const ids = Array.from({ length: 11 }, (_, i) => ({ rag_id: i.toString(16).padStart(24, '0') }));
      const many = await save(alice, 'post', '/v3/agents/', kbBody({ agentic_rag: ids }));
      expect(many.body.detail).toEqual([expect.objectContaining({ loc: config0, type: 'rag_too_many' })]);
      const atTen = await save(alice, 'post', '/v3/agents/', kbBody({ rag_id: ragId, agentic_rag: ids.slice(0, 9) }));
      expect(atTen.body.detail.map((d: { type: string }) => d.type)).toEqual(Array(9).fill('rag_not_found'));
      // The index is the feature's; the type matches case-insensitively; other features are not asked about.
      const second = await save(
        alice,
        'post',
        '/v3/agents/',
        agentBody({
          features: [
            { type: 'MEMORY', config: {}, priority: 0 },
            { type: 'knowledge_base', config: {}, priority: 1 },
          ],
        }),
      );
      expect(second.body.detail).toEqual([
        expect.objectContaining({ loc: ['body', 'features', 1, 'config'], type: 'rag_missing' }),
      ]);
    });

    it('checks create and update on the general and the single-task routes; a refused update changes nothing', async () => {
      const cred = await credentialOf(alice);
      const good = { rag_id: ragId };
      const foreign = { rag_id: (await g.createRag(g.bob)) as string };
      const general = await save(alice, 'post', '/v3/agents/', kbBody(good, { llm_credential_id: cred }));
      expect(general.status).toBe(201);
      const put = await save(alice, 'put', `/v3/agents/${general.body.id}`, kbBody(foreign));
      expect(put.status).toBe(422);
      expect(put.body.detail[0]).toEqual(expect.objectContaining({ loc: config0, type: 'rag_not_found' }));
      const stored = await request(agent).get(`/v3/agents/${general.body.id}`).set('x-api-key', alice);
      expect(stored.body.features[0].config).toEqual(good);

      const single = { name: 'Single KB', agent_role: 'Answer', llm_credential_id: cred, model: 'gpt-4o-mini' };
      const features = (config: object) => [{ type: 'KNOWLEDGE_BASE', config, priority: 0 }];
      const refused = await save(alice, 'post', '/v3/agents/template/single-task', {
        ...single,
        features: features(foreign),
      });
      expect(refused.status).toBe(422);
      expect(refused.body.detail[0].loc).toEqual(config0);
      const created = await save(alice, 'post', '/v3/agents/template/single-task', {
        ...single,
        features: features({ lyzr_rag: { rag_id: ragId } }),
      });
      expect(created.status).toBe(201);
      const path = `/v3/agents/template/single-task/${created.body.id}`;
      const patch = await save(alice, 'put', path, { features: features({ agentic_rag: [{ rag_id: 'nope' }] }) });
      expect(patch.status).toBe(422);
      expect(patch.body.detail[0]).toEqual(expect.objectContaining({ loc: config0, type: 'rag_not_found' }));
      expect((await save(alice, 'put', path, { features: features({ oneshot_rag: [good] }) })).status).toBe(200);
      const res = await chat(alice, String(created.body.id), 'Where is the Qorvian Institute located?');
      expect(res.status).toBe(200);
      expect(lastSystemPrompt()).toContain('The Qorvian Institute is located in Lisbon.');
    });

    it('answers 503 when the rag service cannot be asked, and stores nothing', async () => {
      const closed = agentApp(`http://127.0.0.1:${await freePort()}`);
      const key = await dbs.mintKey({ user_id: 'carol', org_id: 'initech' });
      const res = await request(closed)
        .post('/v3/agents/')
        .set('x-api-key', key)
        .send(kbBody({ rag_id: ragId }));
      expect(res.status).toBe(503);
      expect(res.body).toEqual({ detail: 'Service unavailable' });
      expect((await request(closed).get('/v3/agents/').set('x-api-key', key)).body.total).toBe(0);
    });
  });
}
