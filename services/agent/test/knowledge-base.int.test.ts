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
  openAiTextReply,
  startResponderLlm,
  type ResponderLlm,
  type TestDatabases,
} from '@platform/testing';

import { ALICE, BOB, INTERNAL_SECRET, startGraphStack, type GraphStack } from '../../graph/test/helpers';
import { startTestSite, type TestSite } from '../../graph/test/site';
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

/** The provider stand-in answers with the sources it was given: the first "(source: URL)" of its system prompt. */
function answerFromPrompt(body: Record<string, unknown>): unknown {
  const messages = body.messages as { role: string; content: string }[];
  const system = messages.find((m) => m.role === 'system')?.content ?? '';
  const cited = /\[1\] (.*?) \(source: (\S+)\)/.exec(system);
  return openAiTextReply(cited ? `According to [1] ${cited[2]}: ${cited[1]}` : 'I do not know.');
}

beforeAll(async () => {
  s = await startTestSite({ hugeBytes: 1024 });
  g = await startGraphStack({ allowHosts: `127.0.0.1:${s.site.port}` });
  ragId = await g.createRag(g.alice);
  await request(g.app)
    .post(`/v4/knowledge_graph/website/?rag_id=${ragId}`)
    .set('x-api-key', g.alice)
    .send({ urls: [`${s.site.url}/`], max_crawl_pages: 20, max_crawl_depth: 2 });
  llm = await startResponderLlm('openai', answerFromPrompt);
  dbs = await createTestDatabases('agentkb');
  const ragHost = new URL(g.ragUrl).host;
  outbound = createOutboundClient({ allowHosts: `127.0.0.1:${llm.port},${ragHost}` });
  agent = createApp({
    logger: captureLogger('agent').logger,
    db: dbs.conn,
    auth: createApiKeyAuth({ keys: createApiKeyRepository(dbs.authConn), cacheTtlMs: 30_000 }),
    box: createSecretBox(randomBytes(32)),
    outbound,
    internalSecret: INTERNAL_SECRET,
    knowledge: { baseUrl: g.ragUrl, secret: INTERNAL_SECRET, timeoutMs: 5_000 },
    readiness: { mongodb: () => pingMongo(dbs.conn) },
  });
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

async function agentWith(key: string, config: Record<string, unknown>): Promise<string> {
  const cred = await request(agent)
    .post('/v3/providers/credentials')
    .set('x-api-key', key)
    .send({
      name: 'llm',
      provider_id: 'openai',
      credentials: { api_key: 'sk-proj-KnowledgeBaseTest0123', base_url: llm.baseUrl },
    });
  const res = await request(agent)
    .post('/v3/agents/')
    .set('x-api-key', key)
    .send(
      agentBody({
        system_prompt: 'You answer questions about Zylotech.',
        llm_credential_id: cred.body.credential_id,
        features: [{ type: 'KNOWLEDGE_BASE', config, priority: 0 }],
      }),
    );
  if (res.status >= 300) throw new Error(`agent not created: ${res.status} ${res.text}`);
  return String(res.body.id ?? res.body.agent_id);
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

  it("answers 422 for another owner's RAG configuration or a missing rag_id, and the provider is not called", async () => {
    const before = llm.requests.length;
    const foreign = await agentWith(bob, { rag_id: ragId });
    const res = await chat(bob, foreign, 'Where is the Qorvian Institute located?');
    expect(res.status).toBe(422);
    expect(res.body.detail[0]).toEqual(expect.objectContaining({ loc: ['body', 'agent_id'], type: 'rag_not_found' }));
    const missing = await agentWith(alice, { top_k: 3 });
    expect((await chat(alice, missing, 'hello')).body.detail[0].type).toBe('rag_missing');
    expect(llm.requests.length).toBe(before);
  });

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
