import { randomUUID } from 'node:crypto';
import request from 'supertest';

import { mongoose } from '@platform/db';

import { fingerprintOf } from '../src/transcripts/transcript.derive';
import { migrateTranscriptStore } from '../src/transcripts/transcript.migration';
import { DAY, ingest, iso, startVoiceApp, type VoiceTestApp } from './helpers';

/**
 * A database written by the version that kept 15-minute bucket keys on every transcript and tallies per
 * organization, agent, day and bucket beside them: the new code reads it as it is, and the start-up migration removes
 * what nothing uses any more.
 */
let t: VoiceTestApp;
let alice: string;
let globex: string;
const base = Math.floor(Date.now() / DAY) * DAY - 30 * DAY;
const BUCKET_MS = 15 * 60_000;
const HOUR = 3_600_000;

/** An ingest body of the earlier version's time (what the runtime would send again on a retry). */
const bodyOf = (agentId: string, startMs: number, i: number) => ({
  sessionId: randomUUID(),
  agentId,
  startedAt: iso(startMs),
  durationMs: 1000 * (i + 1),
  messageCount: i % 5,
});

/** A transcript summary exactly as the earlier version wrote it (`tallied` false: its ingest stopped before counting). */
function oldSummary(org: string, body: ReturnType<typeof bodyOf>, tallied: boolean) {
  const start = Date.parse(body.startedAt);
  const bucket = Math.floor(start / BUCKET_MS);
  const end = new Date(start + body.durationMs);
  return {
    _id: new mongoose.Types.ObjectId(),
    session_id: body.sessionId,
    org_id: org,
    user_id: 'alice',
    agent_id: body.agentId,
    room_name: '',
    close_reason: 'unknown',
    duration_ms: body.durationMs,
    message_count: body.messageCount,
    started_at: new Date(start),
    ended_at: end,
    created_at: end,
    updated_at: end,
    fingerprint: fingerprintOf(body),
    tallied,
    org_bucket: JSON.stringify([org, bucket]),
    agent_bucket: JSON.stringify([org, body.agentId, bucket]),
  };
}
type Old = ReturnType<typeof oldSummary>;

/** The earlier version's tallies of the counted transcripts: per organization and agent, per day, per bucket. */
function oldTallies(docs: Old[]) {
  const tallies = new Map<
    string,
    { _id: string; calls: number; messages: number; duration_ms: number; counts: object }
  >();
  const add = (id: unknown[], key: number, d: Old) => {
    const _id = JSON.stringify(id);
    const x = tallies.get(_id) ?? { _id, calls: 0, messages: 0, duration_ms: 0, counts: {} };
    const counts = x.counts as Record<number, number>;
    counts[key] = (counts[key] ?? 0) + 1;
    tallies.set(_id, {
      ...x,
      calls: x.calls + 1,
      messages: x.messages + d.message_count,
      duration_ms: x.duration_ms + d.duration_ms,
    });
  };
  for (const d of docs.filter((x) => x.tallied)) {
    const day = Math.floor(d.started_at.getTime() / DAY);
    const bucket = Math.floor(d.started_at.getTime() / BUCKET_MS);
    add(['org', d.org_id], day, d);
    add(['agent', d.org_id, d.agent_id], day, d);
    add(['org-day', d.org_id, day], bucket, d);
    add(['agent-day', d.org_id, d.agent_id, day], bucket, d);
  }
  return [...tallies.values()];
}

const bodies: ReturnType<typeof bodyOf>[] = [];
const olds: Old[] = [];
let tallyCount = 0;

beforeAll(async () => {
  t = await startVoiceApp();
  alice = await t.dbs.mintKey({ user_id: 'alice', org_id: 'acme' });
  globex = await t.dbs.mintKey({ user_id: 'carol', org_id: 'globex' });
  for (let i = 0; i < 12; i++) bodies.push(bodyOf(i % 3 === 0 ? 'o1' : 'o2', base + i * 7 * HOUR, i));
  bodies.push(bodyOf('o1', base + 21 * HOUR, 12)); // a tie on startedAt with bodies[3]: ordered by id
  bodies.forEach((b, i) => olds.push(oldSummary(i === 11 ? 'globex' : 'acme', b, i !== 3)));
  const db = t.dbs.conn.db!;
  await db.collection('transcripts').createIndex({ org_bucket: 1, started_at: 1 });
  await db.collection('transcripts').createIndex({ agent_bucket: 1, started_at: 1 });
  await db.collection('transcripts').insertMany(olds);
  await db
    .collection('transcript_bodies')
    .insertMany(olds.map((o, i) => ({ _id: o._id, session_report: JSON.stringify({ n: i }), chat_history: '[]' })));
  const tallies = oldTallies(olds);
  tallyCount = tallies.length;
  await db.collection<{ _id: string }>('transcript_tallies').insertMany(tallies);
}, 60_000);
afterAll(() => t.close());

const get = (path: string, key = alice) => request(t.app).get(path).set('x-api-key', key);
const idsOf = (items: { id: string }[]) => items.map((i) => i.id);
const hex = (os: Old[]) => os.map((o) => o._id.toHexString());
const byStart = (a: Old, b: Old) =>
  a.started_at.getTime() - b.started_at.getTime() || a._id.toHexString().localeCompare(b._id.toHexString());
const statsOf = (os: Old[]) => {
  const sum = (f: (o: Old) => number) => os.reduce((s, o) => s + f(o), 0);
  return {
    totalCalls: os.length,
    avgMessages: Math.round((sum((o) => o.message_count) / os.length) * 100) / 100,
    avgDurationMs: Math.round(sum((o) => o.duration_ms) / os.length),
  };
};

/** Lists, reads and stats of the earlier shape, exactly as stored (stats: the transcripts counted so far). */
async function expectReadAsStored(): Promise<void> {
  const acme = olds.filter((o) => o.org_id === 'acme');
  const page = await get('/v1/transcripts?limit=5&offset=2');
  expect(page.body.total).toBe(acme.length);
  expect(idsOf(page.body.items)).toEqual(hex([...acme].sort(byStart).reverse().slice(2, 7)));
  const from = base + 21 * HOUR;
  const o1 = acme.filter((o) => o.agent_id === 'o1');
  const asc = await get(`/v1/transcripts?agentId=o1&sort=asc&from=${iso(from)}`);
  expect(idsOf(asc.body.items)).toEqual(hex(o1.filter((o) => o.started_at.getTime() >= from).sort(byStart)));
  expect((await get('/v1/transcripts/agent/o1/stats')).body).toEqual(statsOf(o1.filter((o) => o.tallied)));
  expect((await get('/v1/transcripts/agent/o2/stats')).body).toEqual(statsOf(acme.filter((o) => o.agent_id === 'o2')));
  const one = await get(`/v1/transcripts/${olds[1]!.session_id}`);
  expect(one.body.transcript).toMatchObject({
    id: olds[1]!._id.toHexString(),
    sessionReport: { n: 1 },
    chatHistory: [],
  });
  expect(one.body.transcript).not.toHaveProperty('tallied');
  expect((await get('/v1/transcripts', globex)).body.total).toBe(1);
}

it('reads, lists and counts transcripts of the earlier shape before any migration; new ones join them', async () => {
  await expectReadAsStored();
  // The one whose ingest stopped before counting it is counted by the runtime's retry, once.
  const replays = await Promise.all([ingest(t.app, alice, bodies[3]), ingest(t.app, alice, bodies[3])]);
  expect(replays.map((r) => r.status)).toEqual([200, 200]);
  olds[3]!.tallied = true;
  await expectReadAsStored();
  // The earlier indexes do not stand in the way of a new transcript, which has no bucket keys.
  const body = bodyOf('o1', base - DAY, 20);
  const res = await ingest(t.app, alice, body);
  expect(res.status).toBe(201);
  olds.push({ ...oldSummary('acme', body, true), _id: new mongoose.Types.ObjectId(res.body.transcript.id as string) });
  await expectReadAsStored();
});

it('the migration drops the bucket indexes and every tally but the agents’ totals, once', async () => {
  const agentTotals = new Set(olds.map((o) => `${o.org_id}/${o.agent_id}`)).size;
  expect(await migrateTranscriptStore(t.dbs.conn)).toEqual({
    indexes: ['org_bucket_1_started_at_1', 'agent_bucket_1_started_at_1'],
    tallies: tallyCount - agentTotals,
  });
  expect(await migrateTranscriptStore(t.dbs.conn)).toEqual({ indexes: [], tallies: 0 });
  await Promise.all([migrateTranscriptStore(t.dbs.conn), migrateTranscriptStore(t.dbs.conn)]);
  const db = t.dbs.conn.db!;
  expect(await db.collection('transcript_tallies').countDocuments({})).toBe(agentTotals);
  const indexes = (await db.collection('transcripts').indexes()).map((i) => i.name);
  expect(indexes).toEqual(expect.arrayContaining(['session_id_1_org_id_1', 'org_id_1_started_at_1__id_1']));
  expect(indexes.filter((n) => n?.includes('bucket'))).toEqual([]);
  await expectReadAsStored();
});

it('on a database that never had the earlier shape the migration does nothing', async () => {
  const fresh = await startVoiceApp();
  try {
    expect(await migrateTranscriptStore(fresh.dbs.conn)).toEqual({ indexes: [], tallies: 0 });
  } finally {
    await fresh.close();
  }
});
