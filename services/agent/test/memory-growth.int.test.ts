import { connectMongo, ensureLookupIndexes, mongoose, readCostOf, type Connection } from '@platform/db';
import { testInfra, uniqueName } from '@platform/testing';

import { chatMessageModel } from '../src/inference/memory.model';
import { createMemoryRepository } from '../src/inference/memory.repository';

// A run's memory read and a session's list read that session's messages, however many its owner has in others.
let conn: Connection;
const owner = { user_id: 'alice', org_id: 'acme' };

beforeAll(async () => {
  conn = await connectMongo({ uri: testInfra.mongoUri, dbName: uniqueName('memgrowth') });
  const Message = chatMessageModel(conn);
  await Message.init();
  await ensureLookupIndexes(Message);
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
    role: 'user',
    content: 'x',
    turn_at: now,
    turn_id: new mongoose.Types.ObjectId(),
    seq: 0,
    created_at: now,
  }));
  for (let i = 0; i < docs.length; i += 500) await chatMessageModel(conn).collection.insertMany(docs.slice(i, i + 500));
}

it('reads no more rows for a session as its owner’s other sessions grow', async () => {
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
  await memory.appendTurn(owner, turn as never);
  const filters = [
    { user_id: owner.user_id, org_id: owner.org_id, agent_id: 7, session_id: 'mine' },
    { user_id: owner.user_id, org_id: owner.org_id, session_id: 'mine' },
  ];
  await seedOtherSessions(200, 0);
  const before = await Promise.all(filters.map((f) => readCostOf(conn, 'chat_messages', f)));
  await seedOtherSessions(3_000, 200);
  const after = await Promise.all(filters.map((f) => readCostOf(conn, 'chat_messages', f)));
  for (let i = 0; i < filters.length; i++) {
    expect(after[i]!.rows).toBeLessThanOrEqual(before[i]!.rows + 2);
    expect(after[i]!.blocks).toBeLessThanOrEqual(before[i]!.blocks + 8);
  }
  expect(await memory.recent(owner, 7, 'mine', 10)).toEqual([
    { role: 'user', content: 'hi' },
    { role: 'assistant', content: 'hello' },
  ]);
}, 120_000);
