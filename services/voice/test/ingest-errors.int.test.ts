import request from 'supertest';

import { ingest, ingestBody, startVoiceApp, type VoiceTestApp } from './helpers';

let t: VoiceTestApp;
let alice: string;

beforeAll(async () => {
  t = await startVoiceApp();
  alice = await t.dbs.mintKey({ user_id: 'alice', org_id: 'acme' });
});
afterAll(() => t.close());

const MIB = 1024 * 1024;
const locs = (res: request.Response) => (res.body.detail as { loc: (string | number)[] }[]).map((d) => d.loc.join('.'));

it('a body over 10 MiB → 413; one just under is stored whole', async () => {
  const big = (n: number) => ingestBody({ sessionReport: { blob: 'x'.repeat(n) } });
  const over = await ingest(t.app, alice, big(10 * MIB));
  expect(over.status).toBe(413);
  expect(over.body).toEqual({ detail: 'Request body too large' });
  const under = big(10 * MIB - 4096);
  const ok = await ingest(t.app, alice, under);
  expect(ok.status).toBe(201);
  const got = await request(t.app).get(`/v1/transcripts/${under.sessionId}`).set('x-api-key', alice);
  expect(got.body.transcript.sessionReport.blob).toHaveLength(10 * MIB - 4096);
}, 60_000);

it('malformed chat items → 422 naming each one; nothing is stored', async () => {
  const body = ingestBody({
    chatHistory: [
      { type: 'message', content: ['no role'] },
      { type: 'message', role: 'robot', content: ['bad role'] },
      { type: 'message', role: 'user', content: 'not a list' },
      { type: 'function_call', name: 'f', arguments: '{}' },
      { type: 'function_call_output', call_id: 'c', output: 5 },
      { type: 'agent_handoff', old_agent_id: 'a' },
      { role: 'user', content: ['no type'] },
      'not an object',
      { type: 'message', role: 'user', content: ['fine'], created_at: 'yesterday' },
    ],
  });
  const res = await ingest(t.app, alice, body);
  expect(res.status).toBe(422);
  expect(locs(res)).toEqual(
    expect.arrayContaining([
      'body.chatHistory.0.role',
      'body.chatHistory.1.role',
      'body.chatHistory.2.content',
      'body.chatHistory.3.call_id',
      'body.chatHistory.4.output',
      'body.chatHistory.5.new_agent_id',
      'body.chatHistory.6.type',
      'body.chatHistory.7',
      'body.chatHistory.8.created_at',
    ]),
  );
  expect((await request(t.app).get(`/v1/transcripts/${body.sessionId}`).set('x-api-key', alice)).status).toBe(404);
});

it('an item of an unknown type is kept exactly as sent', async () => {
  const odd = { type: 'vendor_event', payload: { $set: 1, 'a.b': [[1], [2, [3]]], nul: null }, created_at: 12 };
  const body = ingestBody({ chatHistory: [odd] });
  const res = await ingest(t.app, alice, body);
  expect(res.status).toBe(201);
  const got = await request(t.app).get(`/v1/transcripts/${body.sessionId}`).set('x-api-key', alice);
  expect(got.body.transcript.chatHistory).toEqual([odd]);
  expect(got.body.transcript.messageCount).toBe(0);
});

it.each([
  ['sessionId missing', { sessionId: undefined }, 'body.sessionId', 'missing'],
  ['sessionId not a UUID', { sessionId: 'abc' }, 'body.sessionId', 'string_pattern_mismatch'],
  ['agentId missing', { agentId: undefined }, 'body.agentId', 'missing'],
  ['agentId not a string', { agentId: 7 }, 'body.agentId', 'string_type'],
  ['sessionReport not an object', { sessionReport: [1] }, 'body.sessionReport', 'dict_type'],
  ['chatHistory not a list', { chatHistory: {} }, 'body.chatHistory', 'list_type'],
  ['durationMs negative', { durationMs: -1 }, 'body.durationMs', 'greater_than_equal'],
  ['messageCount fractional', { messageCount: 1.5 }, 'body.messageCount', 'int_type'],
  ['startedAt not a date', { startedAt: 'soon' }, 'body.startedAt', 'string_isoDate'],
  [
    'startedAt in year +275760',
    { startedAt: '+275760-09-12T23:59:59.969Z' },
    'body.startedAt',
    'string_pattern_mismatch',
  ],
  ['endedAt in year -000001', { endedAt: '-000001-01-01T00:00:00.000Z' }, 'body.endedAt', 'string_pattern_mismatch'],
])('%s → 422', async (_name, over, loc, type) => {
  const res = await ingest(t.app, alice, ingestBody(over));
  expect(res.status).toBe(422);
  expect(res.body.detail).toEqual(expect.arrayContaining([expect.objectContaining({ loc: loc.split('.'), type })]));
});

it('endedAt before startedAt → 422', async () => {
  const now = Date.now();
  const res = await ingest(
    t.app,
    alice,
    ingestBody({ startedAt: new Date(now).toISOString(), endedAt: new Date(now - 1000).toISOString() }),
  );
  expect(res.status).toBe(422);
  expect(res.body.detail).toEqual([
    { loc: ['body', 'endedAt'], msg: 'Must not be before startedAt', type: 'value_error' },
  ]);
});

it('a body that is not JSON → 422 json_invalid; not labelled JSON → 415; none → 422 missing', async () => {
  const bad = await request(t.app)
    .post('/v1/transcripts')
    .set('x-api-key', alice)
    .set('content-type', 'application/json')
    .send('{"sessionId":');
  expect(bad.status).toBe(422);
  expect(bad.body.detail[0]).toMatchObject({ loc: ['body'], type: 'json_invalid' });
  const text = await request(t.app)
    .post('/v1/transcripts')
    .set('x-api-key', alice)
    .set('content-type', 'text/plain')
    .send('hello');
  expect(text.status).toBe(415);
  expect(text.body).toEqual({ detail: 'Content-Type must be application/json' });
  const none = await request(t.app).post('/v1/transcripts').set('x-api-key', alice);
  expect(none.status).toBe(422);
  expect(none.body.detail[0]).toMatchObject({ loc: ['body'], type: 'missing' });
});

it('a string with U+0000 → 422 string_nul before anything is stored', async () => {
  const body = ingestBody({ roomName: 'a\u0000b' });
  const res = await ingest(t.app, alice, body);
  expect(res.status).toBe(422);
  expect(res.body.detail[0]).toMatchObject({ loc: ['body', 'roomName'], type: 'string_nul' });
  expect((await request(t.app).get(`/v1/transcripts/${body.sessionId}`).set('x-api-key', alice)).status).toBe(404);
});
