import { connectMongo, mongoose, type Connection } from '@platform/db';
import { testInfra, uniqueName } from '@platform/testing';

import { chatMessageModel } from '../src/inference/memory.model';
import { createMemoryRepository } from '../src/inference/memory.repository';

// A run's memory read and a session's list read that session's messages alone, however many its owner has in other
// sessions: each sends the same commands, which return the same documents, before and after the owner's other
// sessions grow fifteenfold; and each query's equalities then its sort lead one of the messages' declared indexes,
// so MongoDB reads it as one range of that index (the session's messages), not the owner's. The connection passes
// the calls through exactly as MongoDB gets them, so the driver's command monitoring sees every one.
let conn: Connection;
const owner = { user_id: 'alice', org_id: 'acme' };

/** One command the driver sent to `chat_messages`: its filter and sort, and how many documents came back. */
interface Sent {
  command: string;
  filter: Record<string, unknown>;
  sort: Record<string, number>;
  returned: number;
}
const sent = new Map<number, Sent>();

/** The filter and sort of a `find`, or of an `aggregate` that counts (`$match`, then `$group`). */
function queryOf(c: Record<string, unknown>): Pick<Sent, 'filter' | 'sort'> {
  if (c.find !== undefined) {
    const sort = c.sort instanceof Map ? Object.fromEntries(c.sort) : (c.sort ?? {}); // the driver sends a Map
    return { filter: (c.filter ?? {}) as Sent['filter'], sort: sort as Sent['sort'] };
  }
  const pipeline = (c.pipeline ?? []) as Record<string, unknown>[];
  return { filter: (pipeline[0]?.$match ?? {}) as Sent['filter'], sort: {} };
}

beforeAll(async () => {
  conn = await connectMongo({
    uri: testInfra.mongoUri,
    dbName: uniqueName('memgrowth'),
    monitorCommands: true,
    adapter: 'pass-through',
  });
  await chatMessageModel(conn).init();
  const client = conn.getClient();
  client.on('commandStarted', (e: mongoose.mongo.CommandStartedEvent) => {
    const c = e.command as Record<string, unknown>;
    if (c[e.commandName] !== 'chat_messages' || !['find', 'aggregate'].includes(e.commandName)) return;
    sent.set(e.requestId, { command: e.commandName, ...queryOf(c), returned: 0 });
  });
  client.on('commandSucceeded', (e: mongoose.mongo.CommandSucceededEvent) => {
    const s = sent.get(e.requestId);
    const batch = (e.reply as { cursor?: { firstBatch?: unknown[] } }).cursor?.firstBatch;
    if (s && batch) s.returned = batch.length;
  });
}, 60_000);
afterAll(async () => {
  await conn.dropDatabase();
  await conn.close();
});

async function seedOtherSessions(n: number, from: number): Promise<void> {
  const now = new Date();
  const docs = Array.from({ length: n }, (_, i) => ({
    ...owner,
    agent_id: 7,
    session_id: `execution-${from + i}`,
    role: 'user' as const,
    content: 'x',
    turn_at: now,
    turn_id: new mongoose.Types.ObjectId(),
    seq: 0,
    created_at: now,
  }));
  for (let i = 0; i < docs.length; i += 500) await chatMessageModel(conn).insertMany(docs.slice(i, i + 500));
}

/** Equality fields of a filter: plain values, `$eq` and `$in` (the index is read at points). */
const equalities = (filter: Record<string, unknown>) =>
  Object.entries(filter)
    .filter(([k, v]) => {
      if (k.startsWith('$')) return false;
      if (v === null || typeof v !== 'object' || v instanceof Date || v instanceof mongoose.Types.ObjectId) return true;
      const ops = Object.keys(v);
      return ops.length > 0 && ops.every((op) => op === '$eq' || op === '$in');
    })
    .map(([k]) => k);

/** A declared index whose keys start with the filter's equalities (any order) then its sort (or its reverse). */
function servingIndex(q: Pick<Sent, 'filter' | 'sort'>): Record<string, number> | undefined {
  const eq = equalities(q.filter);
  const sort = Object.entries(q.sort);
  if (eq.length !== Object.keys(q.filter).length) return undefined; // a range or `$or`: not what these reads send
  return chatMessageModel(conn)
    .schema.indexes()
    .map(([keys]) => keys as Record<string, number>)
    .find((keys) => {
      const fields = Object.entries(keys);
      if (fields.length < eq.length + sort.length) return false;
      if (!fields.slice(0, eq.length).every(([f]) => eq.includes(f))) return false;
      const after = fields.slice(eq.length, eq.length + sort.length);
      const flip = sort.length > 0 && after[0]![1] !== sort[0]![1] ? -1 : 1;
      return after.every(([f, d], i) => f === sort[i]![0] && d === flip * sort[i]![1]);
    });
}

/** The memory read and both forms of the session's list, and the commands they sent (in a fixed order). */
async function readSession(): Promise<Sent[]> {
  const memory = createMemoryRepository(conn);
  sent.clear();
  expect(await memory.recent(owner, 7, 'mine', 10)).toEqual([
    { role: 'user', content: 'hi' },
    { role: 'assistant', content: 'hello' },
  ]);
  expect((await memory.list(owner, 'mine', { skip: 0, limit: 20 })).total).toBe(2);
  expect((await memory.list(owner, 'mine', { skip: 0, limit: 20, agentId: 7 })).items).toHaveLength(2);
  const key = (x: Sent) => `${x.command} ${JSON.stringify(x.filter)}`;
  return [...sent.values()].sort((a, b) => key(a).localeCompare(key(b)));
}

it('reads only the session’s messages as its owner’s other sessions grow', async () => {
  const memory = createMemoryRepository(conn);
  const turn = {
    agentId: 7,
    sessionId: 'mine',
    message: 'hi',
    reply: 'hello',
    startedAt: new Date(),
    finishedAt: new Date(),
    usage: null,
    providerId: 'openai',
    model: 'm',
    toolCalls: [],
  };
  await memory.appendTurn(owner, turn);
  await seedOtherSessions(200, 0);
  const before = await readSession();
  await seedOtherSessions(3_000, 200);
  const after = await readSession();

  // Each list's count and page, and the run's read (the limited find with the agent).
  expect(after.map((s) => s.command)).toEqual(['aggregate', 'aggregate', 'find', 'find', 'find']);
  expect(after).toEqual(before);
  expect(after.filter((s) => s.command === 'find').map((s) => s.returned)).toEqual([2, 2, 2]);
  for (const s of after) {
    expect(s.filter).toMatchObject({ ...owner, session_id: 'mine' });
    expect({ query: s, index: servingIndex(s) }).toEqual({ query: s, index: expect.any(Object) });
    if (s.command === 'find') expect(s.sort).toEqual({ turn_at: -1, turn_id: -1, seq: -1 });
  }
  // A page with the agent is served by the index that holds it; one without it (sorted right after the owner) by
  // the other.
  const pages = after.filter((s) => s.command === 'find');
  for (const s of pages) expect(servingIndex(s)?.agent_id).toBe('agent_id' in s.filter ? 1 : undefined);
  expect(pages.filter((s) => 'agent_id' in s.filter)).toHaveLength(2);
}, 120_000);
