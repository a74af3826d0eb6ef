/** The knowledge services as the security suites see them: rag (A's configuration and trained text) and graph. */
import request from 'supertest';

import { startLocalServer, type LocalServer } from '@platform/testing';

import { startGraphStack } from '../../services/graph/test/helpers';
import { ragBody, startRagApp } from '../../services/rag/test/helpers';
import { del, get, idOf, mintKeys, post, put, USERS, type Probe, type Req } from './tenancy-kit';
import { hexId, worldOf, type SecurityWorld } from './world-kit';

export async function startRagWorld(): Promise<SecurityWorld> {
  const t = await startRagApp();
  const keys = await mintKeys(t.dbs.mintKey);
  const agentKeyA = await t.agent.dbs.mintKey(USERS.A);
  const credential = await t.credential(agentKeyA);
  const absentCredential = await t.credential(agentKeyA);
  await request(t.agent.app)
    .delete(`/v3/providers/credentials/${absentCredential}`)
    .set('x-api-key', agentKeyA)
    .expect(204);
  for (const actor of ['B', 'C'] as const) await t.agent.dbs.mintKey(USERS[actor]); // B and C exist in the agent service too
  const body = (over: Record<string, unknown> = {}) =>
    ragBody({ llm_credential_id: credential, embedding_credential_id: credential, ...over });
  const create = (name: string) =>
    idOf(
      request(t.app)
        .post('/v3/rag/')
        .set('x-api-key', keys.A)
        .send(body({ collection_name: name })),
      'id',
      'rag config',
    );
  const config = await create('a_docs');
  const absent = await create('a_gone');
  await request(t.app).delete(`/v3/rag/${absent}/`).set('x-api-key', keys.A).expect(204);
  const cfg = (req: (id: string) => Req): Probe => ({ kind: 'hidden', req, own: config, absent });
  // A's knowledge base: one trained text, whose document id B and C must not reach either.
  const trained = await request(t.app)
    .post(`/v3/train/text/?rag_id=${config}`)
    .set('x-api-key', keys.A)
    .send({ data: [{ text: 'Ada Lovelace wrote the first program for the Analytical Engine.', source: 'a-note' }] });
  if (trained.status !== 200) throw new Error(`train: ${trained.status} ${trained.text}`);
  const documentId = (trained.body.documents as { id: string }[])[0]!.id;
  const upload = (kind: string, bytes: Buffer, name: string) => (id: string) => ({
    method: 'post' as const,
    path: `/v3/train/${kind}/?rag_id=${id}`,
    file: { field: 'file', bytes, name },
  });
  const probes: Record<string, Probe> = {
    'POST /v3/train/text': cfg((id) =>
      post(`/v3/train/text/?rag_id=${id}`, { data: [{ text: 'B was here', source: 'b-note' }] }),
    ),
    'POST /v3/train/txt': cfg(upload('txt', Buffer.from('B was here'), 'b.txt')),
    // This world has no OCR or graph service: the owner's PDF is refused as not a PDF (415) before it would be sent
    // there, and the owner's website training cannot run (both are trained for real in the rag service's knowledge
    // tests); B and C meet the owner check first either way.
    'POST /v3/train/pdf': cfg(upload('pdf', Buffer.from('B was here, not a PDF'), 'b.pdf')),
    'POST /v3/train/docx': cfg(upload('docx', Buffer.from('PK B was here'), 'b.docx')),
    'POST /v3/train/website': {
      kind: 'hidden',
      own: config,
      absent,
      req: (id) => post(`/v3/train/website/?rag_id=${id}`, { urls: ['https://example.com/'] }),
      ownWriteElsewhere: 'the crawl needs the graph service: services/rag/test/knowledge-website.int.test.ts',
    },
    'GET /v3/rag/documents/{}': cfg((id) => get(`/v3/rag/documents/${id}/`)),
    'DELETE /v3/rag/{}/docs': cfg((id) => ({ method: 'delete', path: `/v3/rag/${id}/docs/`, body: [documentId] })),
    'DELETE /v3/rag/{}/reset': cfg((id) => del(`/v3/rag/${id}/reset/`)),
    'GET /v3/rag/{}/retrieve': cfg((id) => get(`/v3/rag/${id}/retrieve/?query=Lovelace`)),
    // A configuration naming A's credential (in the agent service) is refused to B and C as if it did not exist.
    'POST /v3/rag': {
      kind: 'hidden',
      own: credential,
      absent: absentCredential,
      absentStatus: 422,
      req: (id) =>
        post('/v3/rag/', ragBody({ collection_name: 'b_docs', llm_credential_id: id, embedding_credential_id: id })),
    },
    'GET /v3/rag': { kind: 'list', req: get('/v3/rag/'), own: [config] },
    'GET /v3/rag/user/{}': {
      kind: 'hidden',
      own: USERS.A.user_id,
      absent: 'nobody-has-this-id',
      req: (id) => get(`/v3/rag/user/${id}/`),
    },
    'GET /v3/rag/{}': cfg((id) => get(`/v3/rag/${id}/`)),
    'PUT /v3/rag/{}': cfg((id) => put(`/v3/rag/${id}/`, body({ collection_name: 'taken', description: 'taken' }))),
    'DELETE /v3/rag/{}': cfg((id) => del(`/v3/rag/${id}/`)),
  };
  return worldOf(t, {
    service: 'rag',
    scope: 'owner',
    keys,
    probes,
    snapshot: [get(`/v3/rag/${config}/`), get('/v3/rag/'), get(`/v3/rag/documents/${config}/`)],
    dbs: [t.dbs, t.agent.dbs],
  });
}

/** A one-page website for the crawler, outside the product. */
export function startSite(): Promise<LocalServer> {
  return startLocalServer((req, res) => {
    if (req.url === '/robots.txt') return res.writeHead(404).end();
    res
      .writeHead(200, { 'content-type': 'text/html' })
      .end('<html><body><h1>Ada Lovelace</h1><p>Ada Lovelace worked with Charles Babbage in London.</p></body></html>');
  });
}

export async function startGraphWorld(): Promise<SecurityWorld> {
  const site = await startSite();
  const g = await startGraphStack({ allowHosts: `127.0.0.1:${site.port}` });
  const keys = await mintKeys(g.dbs.mintKey);
  const rag = await g.createRag(keys.A);
  const absent = await g.createRag(keys.A);
  await request(g.ragApp).delete(`/v3/rag/${absent}/`).set('x-api-key', keys.A).expect(204);
  const body = { urls: [`${site.url}/`], max_crawl_pages: 1 };
  const trained = await request(g.app)
    .post(`/v4/knowledge_graph/website/?rag_id=${rag}`)
    .set('x-api-key', keys.A)
    .send(body);
  if (trained.status !== 200) throw new Error(`train: ${trained.status} ${trained.text}`);
  const task = await idOf(
    request(g.app).post(`/v4/knowledge_graph/website/?rag_id=${rag}&async=true`).set('x-api-key', keys.A).send(body),
    'task_id',
    'training task',
  );
  const byRag = (req: (id: string) => Req): Probe => ({ kind: 'hidden', req, own: rag, absent });
  const probes: Record<string, Probe> = {
    'POST /v4/knowledge_graph/neo4j/website': byRag((id) =>
      post(`/v4/knowledge_graph/neo4j/website/?rag_id=${id}`, body),
    ),
    'POST /v4/knowledge_graph/website': byRag((id) =>
      post(`/v4/knowledge_graph/website/?rag_id=${id}&async=true`, body),
    ),
    'GET /v4/knowledge_graph/task/{}': {
      kind: 'hidden',
      own: task,
      absent: hexId(),
      req: (id) => get(`/v4/knowledge_graph/task/${id}`),
    },
    'GET /v4/knowledge_graph/task/status/{}': {
      kind: 'hidden',
      own: task,
      absent: hexId(),
      req: (id) => get(`/v4/knowledge_graph/task/status/${id}`),
    },
    'GET /v4/knowledge_graph/graph': byRag((id) => get(`/v4/knowledge_graph/graph/?rag_id=${id}`)),
    'GET /v4/knowledge_graph/retrieve': byRag((id) => get(`/v4/knowledge_graph/retrieve/?rag_id=${id}&query=Ada`)),
    'DELETE /v4/knowledge_graph/graph': byRag((id) => del(`/v4/knowledge_graph/graph/?rag_id=${id}`)),
    'DELETE /v4/knowledge_graph/pages': byRag((id) => ({
      method: 'delete',
      path: `/v4/knowledge_graph/pages/?rag_id=${id}`,
      body: { source_ids: [hexId()] },
    })),
  };
  return {
    service: 'graph',
    scope: 'owner',
    app: g.app,
    keys,
    probes,
    snapshot: [get(`/v4/knowledge_graph/graph/?rag_id=${rag}`), get(`/v4/knowledge_graph/task/${task}`)],
    lines: null,
    dbs: [g.dbs, g.ragDbs],
    secrets: [],
    shown: [],
    stubs: { site },
    close: async () => {
      await g.close();
      await site.close();
    },
  };
}
