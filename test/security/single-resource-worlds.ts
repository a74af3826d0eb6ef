/**
 * The services with one kind of object, as the security suites see them: rai (A's policy, owner-scoped), voice (a
 * transcript) and OCR (an extraction), both scoped by organization.
 */
import { randomUUID } from 'node:crypto';
import request from 'supertest';

import { startOcrApp } from '../../services/ocr/test/support/helpers';
import { textPdf } from '../../services/ocr/test/support/text-fixtures';
import { startRaiApp } from '../../services/rai/test/helpers';
import { ingestBody, startVoiceApp } from '../../services/voice/test/helpers';
import { del, get, idOf, mintKeys, post, put, USERS, type Probe, type Req } from './tenancy-kit';
import { hexId, worldOf, type SecurityWorld } from './world-kit';

export async function startRaiWorld(): Promise<SecurityWorld> {
  const t = await startRaiApp();
  const keys = await mintKeys(t.dbs.mintKey);
  const body = { keywords: { enabled: true, keywords: ['codename-a'] } };
  const policy = await t.policy(keys.A, body);
  const absent = await t.policy(keys.A, body);
  await request(t.app).delete(`/v1/rai/policies/${absent}`).set('x-api-key', keys.A).expect(204);
  const pol = (req: (id: string) => Req): Probe => ({ kind: 'hidden', req, own: policy, absent });
  const probes: Record<string, Probe> = {
    'GET /v1/rai/policies': { kind: 'list', req: get('/v1/rai/policies'), own: [policy] },
    'POST /v1/rai/policies': { kind: 'create', req: post('/v1/rai/policies', { name: 'own', ...USERS.A }) },
    'GET /v1/rai/policies/{}': pol((id) => get(`/v1/rai/policies/${id}`)),
    'PUT /v1/rai/policies/{}': pol((id) => put(`/v1/rai/policies/${id}`, { name: 'taken' })),
    'DELETE /v1/rai/policies/{}': pol((id) => del(`/v1/rai/policies/${id}`)),
    'POST /v1/rai/inference': pol((id) =>
      post('/v1/rai/inference', { policy_id: id, text: 'about codename-a', direction: 'input' }),
    ),
  };
  return worldOf(t, {
    service: 'rai',
    scope: 'owner',
    keys,
    probes,
    snapshot: [get(`/v1/rai/policies/${policy}`), get('/v1/rai/policies')],
  });
}

export async function startVoiceWorld(): Promise<SecurityWorld> {
  const t = await startVoiceApp();
  const keys = await mintKeys(t.dbs.mintKey);
  const agentId = `voice-agent-${randomUUID()}`;
  const stored = await request(t.app).post('/v1/transcripts').set('x-api-key', keys.A).send(ingestBody({ agentId }));
  if (stored.status !== 201) throw new Error(`transcript: ${stored.status} ${stored.text}`);
  const session = (stored.body as { transcript: { sessionId: string } }).transcript.sessionId;
  const probes: Record<string, Probe> = {
    // Ingest is idempotent on sessionId: another organization sending A's sessionId must neither see nor change A's.
    'POST /v1/transcripts': {
      kind: 'custom',
      sample: post('/v1/transcripts', ingestBody({ agentId })),
      run: async (send) => {
        const problems: string[] = [];
        const res = await send('C', post('/v1/transcripts', ingestBody({ sessionId: session, agentId: 'c-agent' })));
        if (JSON.stringify(res.body).includes(agentId))
          problems.push(`C's ingest of A's sessionId answered A's transcript: ${res.status}`);
        return problems;
      },
    },
    'GET /v1/transcripts': { kind: 'list', req: get('/v1/transcripts'), own: [session] },
    'GET /v1/transcripts/agent/{}/stats': {
      kind: 'hidden',
      own: agentId,
      absent: `absent-${randomUUID()}`,
      req: (id) => get(`/v1/transcripts/agent/${id}/stats`),
    },
    'GET /v1/transcripts/{}': {
      kind: 'hidden',
      own: session,
      absent: randomUUID(),
      req: (id) => get(`/v1/transcripts/${id}`),
    },
  };
  const snapshot = [
    get(`/v1/transcripts/${session}`),
    get('/v1/transcripts'),
    get(`/v1/transcripts/agent/${agentId}/stats`),
  ];
  return worldOf(t, { service: 'voice', scope: 'org', keys, probes, snapshot });
}

export async function startOcrWorld(): Promise<SecurityWorld> {
  const t = await startOcrApp();
  const keys = await mintKeys(t.dbs.mintKey);
  const pdf = Buffer.from(await textPdf([['Invoice of tenant A']]));
  const file = { field: 'file', bytes: pdf, name: 'a.pdf' };
  const extract = (org: string): Req => ({ method: 'post', path: `/extract?organization_id=${org}`, file });
  const extraction = await idOf(
    request(t.app).post(extract(USERS.A.org_id).path).set('x-api-key', keys.A).attach('file', pdf, 'a.pdf'),
    'id',
    'extraction',
  );
  const probes: Record<string, Probe> = {
    'POST /extract': { kind: 'hidden', own: USERS.A.org_id, absent: 'no-such-org', req: extract },
    'GET /extract/{}': { kind: 'hidden', own: extraction, absent: hexId(), req: (id) => get(`/extract/${id}`) },
  };
  return worldOf(t, { service: 'ocr', scope: 'org', keys, probes, snapshot: [get(`/extract/${extraction}`)] });
}
