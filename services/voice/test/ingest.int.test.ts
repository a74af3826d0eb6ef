import request from 'supertest';

import {
  chatItems,
  ingest,
  ingestBody,
  iso,
  livekitReport,
  orgKeys,
  startVoiceApp,
  type VoiceTestApp,
} from './helpers';

let t: VoiceTestApp;
let alice: string;
let bob: string;
let globex: string;

beforeAll(async () => {
  t = await startVoiceApp();
  ({ alice, bob, globex } = await orgKeys(t));
});
afterAll(() => t.close());

const stats = async (key: string, agent: string) =>
  (await request(t.app).get(`/v1/transcripts/agent/${agent}/stats`).set('x-api-key', key)).body;

it('stores a new transcript (201) with every field of the spec, as GET then shows it', async () => {
  const startMs = Date.now() - 7_200_000;
  const body = ingestBody({}, startMs);
  const before = Date.now();
  const res = await ingest(t.app, alice, body);
  expect(res.status).toBe(201);
  const tr = res.body.transcript;
  expect(tr).toEqual({
    id: expect.stringMatching(/^[0-9a-f]{24}$/),
    sessionId: body.sessionId,
    roomName: 'room-a',
    agentId: 'agent-1',
    orgId: 'acme',
    createdByUserId: 'alice',
    sessionReport: { summary: { intent: 'booking' } },
    chatHistory: body.chatHistory,
    closeReason: 'user_hangup',
    durationMs: 60_000,
    messageCount: 3,
    startedAt: iso(startMs),
    endedAt: iso(startMs + 60_000),
    createdAt: expect.any(String),
    updatedAt: tr.createdAt,
  });
  expect(Date.parse(tr.createdAt)).toBeGreaterThanOrEqual(before - 1);
  expect(Date.parse(tr.createdAt)).toBeLessThanOrEqual(Date.now() + 1);
  const got = await request(t.app).get(`/v1/transcripts/${body.sessionId}`).set('x-api-key', alice);
  expect(got.status).toBe(200);
  expect(got.body).toEqual({ transcript: tr });
});

it('a replay answers 200 with the stored record and changes nothing; key order does not matter', async () => {
  const body = ingestBody({ agentId: 'replay-agent' });
  const first = await ingest(t.app, alice, body);
  expect(first.status).toBe(201);
  const reordered = Object.fromEntries(Object.entries(body).reverse());
  for (const again of [body, reordered]) {
    const res = await ingest(t.app, alice, again);
    expect(res.status).toBe(200);
    expect(res.body).toEqual(first.body);
  }
  // another key of the same organization replays too: the runtime may rotate keys
  expect((await ingest(t.app, bob, body)).status).toBe(200);
  expect(await stats(alice, 'replay-agent')).toEqual({ totalCalls: 1, avgMessages: 3, avgDurationMs: 60_000 });
});

it('a conflicting replay → 409 and the stored record stays as it was', async () => {
  const body = ingestBody({ agentId: 'conflict-agent' });
  const first = await ingest(t.app, alice, body);
  const res = await ingest(t.app, alice, { ...body, closeReason: 'something else' });
  expect(res.status).toBe(409);
  expect(res.body).toEqual({
    detail: `Transcript for session ${body.sessionId} already exists with different content`,
  });
  const got = await request(t.app).get(`/v1/transcripts/${body.sessionId}`).set('x-api-key', alice);
  expect(got.body).toEqual(first.body);
  expect((await stats(alice, 'conflict-agent')).totalCalls).toBe(1);
});

it('concurrent ingests of one session store it once: one 201, the rest 200 with the same record', async () => {
  const body = ingestBody({ agentId: 'race-agent' });
  const answers = await Promise.all(Array.from({ length: 6 }, () => ingest(t.app, alice, body)));
  expect(answers.map((a) => a.status).sort()).toEqual([200, 200, 200, 200, 200, 201]);
  for (const a of answers) expect(a.body.transcript.id).toBe(answers[0]!.body.transcript.id);
  expect((await stats(alice, 'race-agent')).totalCalls).toBe(1);
});

it('the same session id in another organization is another transcript', async () => {
  const body = ingestBody();
  const mine = await ingest(t.app, alice, body);
  const theirs = await ingest(t.app, globex, { ...body, closeReason: 'theirs' });
  expect([mine.status, theirs.status]).toEqual([201, 201]);
  expect(theirs.body.transcript.id).not.toBe(mine.body.transcript.id);
  expect(theirs.body.transcript.orgId).toBe('globex');
});

it('derives messageCount, durationMs, startedAt, endedAt, roomName, closeReason and chatHistory from a LiveKit report', async () => {
  const startMs = Date.now() - 86_400_000;
  const items = chatItems(startMs);
  const report = livekitReport(startMs, startMs + 95_500, items);
  const body = { sessionId: crypto.randomUUID(), agentId: 'derive-agent', sessionReport: report };
  const res = await ingest(t.app, alice, body);
  expect(res.status).toBe(201);
  expect(res.body.transcript).toMatchObject({
    roomName: 'call-room-1',
    closeReason: 'participant_disconnected',
    messageCount: 3,
    durationMs: 95_500,
    startedAt: iso(startMs),
    endedAt: iso(startMs + 95_500),
    chatHistory: items,
    sessionReport: report,
  });
  const got = await request(t.app).get(`/v1/transcripts/${body.sessionId}`).set('x-api-key', alice);
  expect(got.body.transcript.chatHistory).toEqual(items);
  expect(got.body.transcript.sessionReport).toEqual(report);
});

it('derives the times from the chat items when the report has none; given fields win over the report', async () => {
  const startMs = Date.now() - 2 * 86_400_000;
  const items = chatItems(startMs);
  const fromItems = await ingest(t.app, alice, { sessionId: crypto.randomUUID(), agentId: 'x', chatHistory: items });
  expect(fromItems.body.transcript).toMatchObject({
    startedAt: iso(startMs + 1000),
    endedAt: iso(startMs + 8000),
    durationMs: 7000,
    messageCount: 3,
    roomName: '',
    closeReason: 'unknown',
  });

  const report = livekitReport(startMs, startMs + 10_000, items);
  const given = {
    sessionId: crypto.randomUUID(),
    agentId: 'x',
    sessionReport: report,
    messageCount: 9,
    durationMs: 1234,
    roomName: 'r',
    closeReason: 'c',
  };
  const res = await ingest(t.app, alice, given);
  expect(res.body.transcript).toMatchObject({
    messageCount: 9,
    durationMs: 1234,
    roomName: 'r',
    closeReason: 'c',
    startedAt: iso(startMs),
  });
});

it('with no times at all the call ends at the ingest time', async () => {
  const before = Date.now();
  const res = await ingest(t.app, alice, { sessionId: crypto.randomUUID(), agentId: 'x' });
  expect(res.status).toBe(201);
  const tr = res.body.transcript;
  expect(tr).toMatchObject({
    durationMs: 0,
    messageCount: 0,
    chatHistory: [],
    sessionReport: {},
    startedAt: tr.endedAt,
  });
  expect(Date.parse(tr.endedAt)).toBeGreaterThanOrEqual(before - 1);
});

it('ignores server-owned and unknown fields; lower-cases the session id', async () => {
  const body = ingestBody({
    id: 'mine',
    orgId: 'globex',
    createdByUserId: 'mallory',
    createdAt: iso(0),
    updatedAt: iso(0),
    junk: 1,
  });
  const upper = { ...body, sessionId: body.sessionId.toUpperCase() };
  const res = await ingest(t.app, alice, upper);
  expect(res.status).toBe(201);
  expect(res.body.transcript).toMatchObject({ orgId: 'acme', createdByUserId: 'alice', sessionId: body.sessionId });
  expect(res.body.transcript.id).not.toBe('mine');
  expect(res.body.transcript).not.toHaveProperty('junk');
  expect(res.body.transcript.createdAt).not.toBe(iso(0));
  const raw = await t.dbs.conn.collection('transcripts').findOne({ session_id: body.sessionId });
  expect(raw).not.toHaveProperty('junk');
});

it('a transcript stored by an ingest that failed before counting it is counted by the retry, once', async () => {
  const body = ingestBody({ agentId: 'recovered-agent' });
  expect((await ingest(t.app, alice, body)).status).toBe(201);
  // As if the first ingest had stopped after storing the transcript: not counted in its agent's totals yet.
  await t.dbs.conn.collection('transcripts').updateOne({ session_id: body.sessionId }, { $set: { tallied: false } });
  await t.dbs.conn
    .collection<{ _id: string }>('transcript_tallies')
    .deleteOne({ _id: JSON.stringify(['agent', 'acme', 'recovered-agent']) });
  expect(await stats(alice, 'recovered-agent')).toEqual({ totalCalls: 0, avgMessages: 0, avgDurationMs: 0 });
  // Lists read the transcripts themselves: it is listed all along.
  const list = await request(t.app).get('/v1/transcripts?agentId=recovered-agent').set('x-api-key', alice);
  expect(list.body).toMatchObject({ total: 1, items: [expect.objectContaining({ sessionId: body.sessionId })] });
  const retries = await Promise.all([ingest(t.app, alice, body), ingest(t.app, alice, body)]);
  expect(retries.map((r) => r.status)).toEqual([200, 200]);
  expect(await stats(alice, 'recovered-agent')).toEqual({ totalCalls: 1, avgMessages: 3, avgDurationMs: 60_000 });
});
