import { randomUUID } from 'node:crypto';
import request from 'supertest';

import { DAY, ingest, iso, startVoiceApp, type VoiceTestApp } from './helpers';

let t: VoiceTestApp;
let alice: string;
let globex: string;
interface Row {
  id: string;
  sessionId: string;
  agentId: string;
  startedAt: string;
}
const rows: Row[] = [];
// Six UTC days ending ten days ago (derived from the real now), three calls a day at 02:00, 10:00 and 20:00.
const day0 = Math.floor(Date.now() / DAY) * DAY - 15 * DAY;
const at = (d: number, h: number) => day0 + d * DAY + h * 3_600_000;

beforeAll(async () => {
  t = await startVoiceApp();
  alice = await t.dbs.mintKey({ user_id: 'alice', org_id: 'acme' });
  globex = await t.dbs.mintKey({ user_id: 'carol', org_id: 'globex' });
  const calls: { start: number; agent: string }[] = [];
  for (let d = 0; d < 6; d++)
    for (const h of [2, 10, 20]) calls.push({ start: at(d, h), agent: (d + h) % 2 === 0 ? 'a1' : 'a2' });
  calls.push({ start: at(2, 10), agent: 'a1' }, { start: at(2, 10), agent: 'a2' }); // ties: ordered by id
  for (const [i, c] of calls.entries()) {
    const body = {
      sessionId: randomUUID(),
      agentId: c.agent,
      startedAt: iso(c.start),
      endedAt: iso(c.start + 1000 * (i + 1)),
      messageCount: i % 4,
    };
    const res = await ingest(t.app, alice, body);
    if (res.status !== 201) throw new Error(`seed answered ${res.status}`);
    rows.push(res.body.transcript as Row);
  }
  await ingest(t.app, globex, { sessionId: randomUUID(), agentId: 'a1', startedAt: iso(at(1, 1)), durationMs: 5 });
}, 60_000);
afterAll(() => t.close());

const list = (query: string, key = alice) => request(t.app).get(`/v1/transcripts?${query}`).set('x-api-key', key);
const asc = (a: Row, b: Row) => (a.startedAt < b.startedAt ? -1 : a.startedAt > b.startedAt ? 1 : a.id < b.id ? -1 : 1);
const ids = (rs: Row[]) => rs.map((r) => r.id);
const expected = (pick: (r: Row) => boolean, order: 'asc' | 'desc') => {
  const sorted = rows.filter(pick).sort(asc);
  return ids(order === 'asc' ? sorted : sorted.reverse());
};

it('lists newest first by default, with every summary field and no report or chat history', async () => {
  const res = await list('');
  expect(res.status).toBe(200);
  expect(res.body).toMatchObject({ total: rows.length, limit: 50, offset: 0, nextOffset: null });
  expect(ids(res.body.items)).toEqual(expected(() => true, 'desc'));
  expect(Object.keys(res.body.items[0]).sort()).toEqual(
    [
      'id',
      'sessionId',
      'roomName',
      'agentId',
      'orgId',
      'createdByUserId',
      'closeReason',
      'durationMs',
      'messageCount',
      'startedAt',
      'endedAt',
      'createdAt',
      'updatedAt',
    ].sort(),
  );
  expect((await request(t.app).get('/v1/transcripts/').set('x-api-key', alice)).body).toEqual(res.body);
});

it.each(['asc', 'desc'] as const)('sort=%s pages to the end through nextOffset', async (sort) => {
  const seen: Row[] = [];
  let offset: number | null = 0;
  while (offset !== null) {
    const res = await list(`sort=${sort}&limit=4&offset=${offset}`);
    expect(res.body).toMatchObject({ total: rows.length, limit: 4, offset });
    seen.push(...res.body.items);
    offset = res.body.nextOffset;
  }
  expect(ids(seen)).toEqual(expected(() => true, sort));
  const past = await list(`sort=${sort}&offset=${rows.length}`);
  expect(past.body).toEqual({ items: [], total: rows.length, limit: 50, offset: rows.length, nextOffset: null });
});

it('filters by agentId, in both orders and across pages', async () => {
  for (const sort of ['asc', 'desc'] as const) {
    const all = await list(`agentId=a1&sort=${sort}&limit=200`);
    expect(all.body.total).toBe(rows.filter((r) => r.agentId === 'a1').length);
    expect(ids(all.body.items)).toEqual(expected((r) => r.agentId === 'a1', sort));
    const page = await list(`agentId=a1&sort=${sort}&limit=3&offset=2`);
    expect(ids(page.body.items)).toEqual(ids(all.body.items).slice(2, 5));
    expect(page.body.nextOffset).toBe(5);
  }
  expect((await list('agentId=nobody')).body).toEqual({ items: [], total: 0, limit: 50, offset: 0, nextOffset: null });
});

it('filters by from (inclusive) and to (exclusive), cutting through days, alone and with agentId', async () => {
  const cases: [string, (r: Row) => boolean][] = [
    [`from=${iso(at(1, 5))}`, (r) => r.startedAt >= iso(at(1, 5))],
    [`to=${iso(at(3, 15))}`, (r) => r.startedAt < iso(at(3, 15))],
    [
      `from=${iso(at(2, 10))}&to=${iso(at(4, 20))}`,
      (r) => r.startedAt >= iso(at(2, 10)) && r.startedAt < iso(at(4, 20)),
    ],
    [`from=${iso(at(2, 10))}&to=${iso(at(2, 10))}`, () => false],
    [
      `from=${iso(at(2, 10) + 1)}&to=${iso(at(4, 20) + 1)}`,
      (r) => r.startedAt > iso(at(2, 10)) && r.startedAt <= iso(at(4, 20)),
    ],
    [
      `from=${iso(at(1, 9) + 1_200_000)}&to=${iso(at(2, 10) + 7)}`,
      (r) => r.startedAt >= iso(at(1, 9) + 1_200_000) && r.startedAt < iso(at(2, 10) + 7),
    ],
    [
      `agentId=a2&from=${iso(at(1, 0))}&to=${iso(at(5, 3))}`,
      (r) => r.agentId === 'a2' && r.startedAt >= iso(at(1, 0)) && r.startedAt < iso(at(5, 3)),
    ],
  ];
  for (const [query, pick] of cases) {
    for (const sort of ['asc', 'desc'] as const) {
      const want = expected(pick, sort);
      const res = await list(`${query}&sort=${sort}&limit=2&offset=1`);
      expect({ query, status: res.status }).toEqual({ query, status: 200 });
      expect({ query, total: res.body.total, items: ids(res.body.items) }).toEqual({
        query,
        total: want.length,
        items: want.slice(1, 3),
      });
    }
  }
});

it('another organization sees only its own', async () => {
  const res = await list('', globex);
  expect(res.body.total).toBe(1);
  expect(res.body.items[0].orgId).toBe('globex');
});

it.each([
  ['limit=0', 'limit'],
  ['limit=201', 'limit'],
  ['limit=abc', 'limit'],
  ['offset=-1', 'offset'],
  ['sort=up', 'sort'],
  ['from=yesterday', 'from'],
  [`from=${iso(at(3, 0))}&to=${iso(at(2, 0))}`, 'to'],
])('%s → 422 at query.%s', async (query, field) => {
  const res = await list(query);
  expect(res.status).toBe(422);
  expect(res.body.detail.map((d: { loc: string[] }) => d.loc)).toContainEqual(['query', field]);
});

it('limit 200 is accepted', async () => {
  expect((await list('limit=200')).body.limit).toBe(200);
});

it('stats per agent: calls, mean messages (2 decimals) and mean duration (whole ms), scoped to the organization', async () => {
  for (const agent of ['a1', 'a2']) {
    const mine = (
      await request(t.app).get('/v1/transcripts').query({ agentId: agent, limit: 200 }).set('x-api-key', alice)
    ).body.items as { messageCount: number; durationMs: number }[];
    const sum = (f: (x: { messageCount: number; durationMs: number }) => number) => mine.reduce((s, x) => s + f(x), 0);
    const res = await request(t.app).get(`/v1/transcripts/agent/${agent}/stats`).set('x-api-key', alice);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      totalCalls: mine.length,
      avgMessages: Math.round((sum((x) => x.messageCount) / mine.length) * 100) / 100,
      avgDurationMs: Math.round(sum((x) => x.durationMs) / mine.length),
    });
  }
  expect((await request(t.app).get('/v1/transcripts/agent/a1/stats').set('x-api-key', globex)).body).toEqual({
    totalCalls: 1,
    avgMessages: 0,
    avgDurationMs: 5,
  });
  expect((await request(t.app).get('/v1/transcripts/agent/unknown/stats').set('x-api-key', alice)).body).toEqual({
    totalCalls: 0,
    avgMessages: 0,
    avgDurationMs: 0,
  });
});
