import {
  connectMongo,
  insertEach,
  isDuplicateKeyError,
  MAJORITY,
  modelFor,
  mongoose,
  type Connection,
} from '@platform/db';
import { isUnavailableError } from '@platform/errors';
import { createExecutionRepository, type ExecutionRepository } from '@platform/scheduling';
import { startWireProxy, testInfra, uniqueName, type WireProxy } from '@platform/testing';

// A primary election seen from a client: the connection carrying a write closes, either after the server applied it
// (its reply is lost) or before the write reached it. The execution's insert is retried once and stored once.

let direct: Connection;
let viaProxy: Connection;
let proxy: WireProxy;
let repo: ExecutionRepository;
const commands: { name: string; collection: unknown; w: unknown }[] = [];
const owner = { user_id: 'u1', org_id: 'o1' };
const now = new Date(Math.floor(Date.now() / 1000) * 1000);

beforeAll(async () => {
  const dbName = uniqueName('execretry');
  const target = new URL(testInfra.mongoUri);
  proxy = await startWireProxy({ host: target.hostname, port: Number(target.port || 27017) });
  direct = await connectMongo({ uri: testInfra.mongoUri, dbName });
  viaProxy = await connectMongo({
    uri: `mongodb://127.0.0.1:${proxy.port}/?directConnection=true`,
    dbName,
    monitorCommands: true,
    serverSelectionTimeoutMS: 5000,
  });
  viaProxy.getClient().on('commandStarted', (e: mongoose.mongo.CommandStartedEvent) => {
    const cmd = e.command as { writeConcern?: { w?: unknown } };
    commands.push({ name: e.commandName, collection: e.command[e.commandName], w: cmd.writeConcern?.w });
  });
  repo = createExecutionRepository(viaProxy);
  await repo.init();
});
afterAll(async () => {
  await direct.dropDatabase();
  await viaProxy.close();
  await direct.close();
  await proxy.close();
});

const executionInserts = () => commands.filter((c) => c.name === 'insert' && c.collection === 'executions');
const stored = (filter: object) => direct.collection('executions').countDocuments(filter);

test('an insert whose reply is lost (the connection closed after the server stored it) is retried, stored once', async () => {
  const before = executionInserts().length;
  const cut = proxy.cutNext('insert', 'executions', 'after-server');
  const e = await repo.create(
    { kind: 'webhook', webhook_id: 'w-after', agent_id: '7', ...owner, payload: { a: 1 }, max_attempts: 3 },
    now,
  );
  await cut;
  expect(executionInserts().length - before).toBe(2); // the first attempt, and the retry
  expect(await stored({ webhook_id: 'w-after' })).toBe(1);
  expect(await stored({ _id: new mongoose.Types.ObjectId(e.id) })).toBe(1);
  expect((await repo.get(e.id))?.status).toBe('queued');
});

test('an insert cut off before it reached the server is retried and stored once', async () => {
  const before = executionInserts().length;
  const cut = proxy.cutNext('insert', 'executions', 'before-server');
  const e = await repo.create(
    { kind: 'webhook', webhook_id: 'w-before', agent_id: '7', ...owner, payload: null, max_attempts: 1 },
    now,
  );
  await cut;
  expect(executionInserts().length - before).toBe(2);
  expect(await stored({ webhook_id: 'w-before' })).toBe(1);
  expect((await repo.get(e.id))?.webhook_id).toBe('w-before');
});

test("a fire whose insert reply is lost still creates its run (the retry's duplicate fire_key is its own)", async () => {
  const fire = {
    kind: 'http_schedule' as const,
    schedule_id: 's1',
    ...owner,
    payload: null,
    max_attempts: 1,
    scheduled_for: now,
    fire_key: `s1:${now.getTime()}`,
  };
  const cut = proxy.cutNext('insert', 'executions', 'after-server');
  const e = await repo.createOnce(fire, now);
  await cut;
  expect(e?.fire_key).toBe(fire.fire_key);
  expect(await stored({ fire_key: fire.fire_key })).toBe(1);
  // Another replica's fire of the same time is still refused: that duplicate is not this insert's.
  expect(await repo.createOnce(fire, now)).toBeNull();
  expect(await stored({ fire_key: fire.fire_key })).toBe(1);
});

test("a run's writes wait for a majority", async () => {
  const e = await repo.create(
    { kind: 'webhook', webhook_id: 'w-wc', agent_id: '7', ...owner, payload: null, max_attempts: 1 },
    now,
  );
  const claimed = await repo.claim(e.id, now, { claimant: 'job-a' });
  expect(claimed?.status).toBe('running');
  await repo.finish(
    e.id,
    1,
    { success: true, response_status: 200, response_output: 'ok', error_message: null },
    now,
    now,
  );
  const writes = commands.filter(
    (c) => ['insert', 'update', 'findAndModify'].includes(c.name) && c.collection === 'executions',
  );
  expect(writes.length).toBeGreaterThanOrEqual(3);
  expect(new Set(writes.map((c) => c.w))).toEqual(new Set(['majority']));
  expect((await repo.get(e.id))?.status).toBe('succeeded');
});

describe('insertEach with retry, on a collection with a unique name', () => {
  interface Named {
    name: string;
  }
  const schema = new mongoose.Schema<Named>({ name: { type: String, required: true } }, { versionKey: false });
  schema.index({ name: 1 }, { unique: true });
  const namesInserts = () => commands.filter((c) => c.name === 'insert' && c.collection === 'names');
  let M: mongoose.Model<Named>;
  let insert: (docs: object[]) => Promise<(Error | null)[]>;

  beforeAll(async () => {
    M = modelFor(viaProxy, 'Named', schema, 'names');
    await M.init();
    insert = insertEach(M, { retry: true, writeConcern: MAJORITY });
  });

  test('a duplicate on the first try is not retried and stays a duplicate', async () => {
    await direct.collection('names').insertOne({ name: 'first' });
    const before = namesInserts().length;
    const [outcome] = await insert([new M({ name: 'first' }).toObject()]);
    expect(isDuplicateKeyError(outcome)).toBe(true);
    expect(namesInserts().length - before).toBe(1);
  });

  test("on the retry, a duplicate that is not the document's own (its _id is not stored) stays an error", async () => {
    // Another writer holds the name already; the first attempt never reaches the server, the retry is refused.
    await direct.collection('names').insertOne({ name: 'contested' });
    const before = namesInserts().length;
    const cut = proxy.cutNext('insert', 'names', 'before-server');
    const mine = new M({ name: 'contested' }).toObject();
    const pending = insert([mine, new M({ name: 'free' }).toObject()]);
    await cut;
    const [contested, free] = await pending;
    expect(namesInserts().length - before).toBe(2);
    expect(isDuplicateKeyError(contested)).toBe(true);
    expect(free).toBeNull();
    expect(await direct.collection('names').countDocuments({ _id: mine._id })).toBe(0);
    expect(await direct.collection('names').countDocuments({ name: 'free' })).toBe(1);
  });
});

// Last: the proxy stops for good.
test('when the retry finds no server either, the insert fails as an outage, and nothing is stored', async () => {
  const cut = proxy.cutNext('insert', 'executions', 'before-server');
  const failed = repo
    .create({ kind: 'webhook', webhook_id: 'w-gone', agent_id: '7', ...owner, payload: null, max_attempts: 1 }, now)
    .then(
      () => null,
      (err: unknown) => err as Error,
    );
  await cut;
  await proxy.close();
  const err = await failed;
  // An outage, which the API answers 503 for (libs/errors), not a 500.
  expect(isUnavailableError(err)).toBe(true);
  expect(await stored({ webhook_id: 'w-gone' })).toBe(0);
});
