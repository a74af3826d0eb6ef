import { connectMongo, type Connection, type mongoose } from '@platform/db';
import {
  createFireReader,
  createScheduleRepository,
  FIRE_GROUP_BUCKETS,
  FIRE_READ_TTL_MS,
  fireGroupOf,
  nextFire,
  type NewSchedule,
  type ScheduleRecord,
  type ScheduleRepository,
} from '@platform/scheduling';
import { testInfra, uniqueName } from '@platform/testing';

/**
 * Fires that come due together are read together (schedule.fire-reader.ts): on the real database, counting the
 * driver's commands on the schedules.
 */
let conn: Connection;
let repo: ScheduleRepository;
const finds: string[] = [];
const getMores: string[] = [];
const owner = { user_id: 'u-fire', org_id: 'o-fire' };
const EVERY_MINUTE = '* * * * *';

const fields = (cron: string, i: number): NewSchedule => ({
  kind: 'http',
  cron_expression: cron,
  timezone: 'UTC',
  max_retries: 0,
  retry_delay: 1,
  overlap_policy: 'allow',
  is_active: true,
  agent_id: null,
  message: '',
  http: {
    name: `target ${i}`,
    url: 'https://example.com/hook',
    method: 'POST',
    headers_sealed: {},
    query: {},
    body: { i },
    timeout_ms: 1000,
  },
});

beforeAll(async () => {
  conn = await connectMongo({ uri: testInfra.mongoUri, dbName: uniqueName('firereads'), monitorCommands: true });
  conn.getClient().on('commandStarted', (e: mongoose.mongo.CommandStartedEvent) => {
    if (e.commandName === 'find' && e.command.find === 'schedules') finds.push(JSON.stringify(e.command.filter));
    if (e.commandName === 'getMore') getMores.push(String(e.command.collection));
  });
  repo = createScheduleRepository(conn);
  await repo.init();
}, 60_000);
afterAll(async () => {
  await conn?.dropDatabase();
  await conn?.close();
});

const create = async (n: number, cron = EVERY_MINUTE, start = 0) => {
  const out: ScheduleRecord[] = [];
  for (let i = 0; i < n; i++) out.push(await repo.create(owner, fields(cron, start + i), new Date()));
  return out;
};
const strip = ({ updated_at: _u, ...r }: ScheduleRecord) => r;

test('the schedules of fires that come due together are read by group, one read per group and fire time', async () => {
  const schedules = await create(300);
  const groups = new Set(schedules.map((s) => fireGroupOf(s.id, s.cron_expression, s.timezone)));
  const reader = createFireReader({ schedules: repo, clock: Date.now });
  const fireMs = nextFire(EVERY_MINUTE, 'UTC', Date.now() - 60_000)!;
  finds.length = 0;
  const read = await Promise.all(
    schedules.map((s) => reader.forFire(s.id, fireGroupOf(s.id, s.cron_expression, s.timezone), fireMs)),
  );
  expect(read.map((r) => r && strip(r))).toEqual(schedules.map(strip));
  // One read per group, none per schedule: 300 fires, at most 64 reads.
  expect(finds.length).toBe(groups.size);
  expect(finds.length).toBeLessThanOrEqual(FIRE_GROUP_BUCKETS);
  expect(finds.every((f) => f.includes('fire_group'))).toBe(true);

  // The same fire time again within the TTL: answered from the reads; an HTTP run's read of its schedule too.
  finds.length = 0;
  await Promise.all(
    schedules.slice(0, 50).map((s) => reader.forFire(s.id, fireGroupOf(s.id, s.cron_expression, s.timezone), fireMs)),
  );
  expect(await reader.current(schedules[0]!.id)).toEqual(schedules[0]);
  expect(finds).toEqual([]);
  // Another fire time is another read of the group.
  await reader.forFire(schedules[0]!.id, fireGroupOf(schedules[0]!.id, EVERY_MINUTE, 'UTC'), fireMs + 60_000);
  expect(finds).toHaveLength(1);
});

test('a read serves for the TTL only; a paused schedule is seen paused; one whose rule changed, or without a group, is read alone', async () => {
  let now = Date.now();
  const reader = createFireReader({ schedules: repo, clock: () => now });
  const [a, b, c] = await create(3, '5 4 * * *', 1000);
  const fireMs = nextFire('5 4 * * *', 'UTC', now - 86_400_000)!;
  const group = (s: ScheduleRecord) => fireGroupOf(s.id, s.cron_expression, s.timezone);
  await repo.update(owner, 'http', b!.id, { is_active: false });
  const moved = await repo.update(owner, 'http', c!.id, { cron_expression: '6 4 * * *', timezone: 'UTC' });
  finds.length = 0;
  expect((await reader.forFire(b!.id, group(b!), fireMs))?.is_active).toBe(false);
  // c left the group its job names: read by id, as it is now.
  expect((await reader.forFire(c!.id, group(c!), fireMs))?.cron_expression).toBe(moved!.cron_expression);
  expect(finds.filter((f) => f.includes('fire_group'))).toHaveLength(group(b!) === group(c!) ? 1 : 2);
  expect(finds.filter((f) => f.includes('_id'))).toHaveLength(1);

  // A job without a group (queued before groups existed): read by id.
  finds.length = 0;
  expect((await reader.forFire(a!.id, undefined, fireMs))?.id).toBe(a!.id);
  expect(finds).toHaveLength(1);

  // Past the TTL: the group is read again, and a run's read of its schedule is its own.
  await reader.forFire(a!.id, group(a!), fireMs);
  now += FIRE_READ_TTL_MS + 1;
  await repo.update(owner, 'http', a!.id, { is_active: false });
  finds.length = 0;
  expect((await reader.current(a!.id))?.is_active).toBe(false);
  expect((await reader.forFire(a!.id, group(a!), fireMs))?.is_active).toBe(false);
  expect(finds).toHaveLength(2);
});

test('schedules get their group on create and on a change of rule; a failed group read is not kept', async () => {
  const [s] = await create(1, '0 12 * * 1', 2000);
  const doc = await conn
    .collection('schedules')
    .findOne({ _id: new (await import('@platform/db')).mongoose.Types.ObjectId(s!.id) });
  expect(doc?.fire_group).toBe(fireGroupOf(s!.id, '0 12 * * 1', 'UTC'));
  await repo.update(owner, 'http', s!.id, { cron_expression: '0 13 * * 1', timezone: 'Europe/Paris' });
  const after = await conn.collection('schedules').findOne({ _id: doc!._id });
  expect(after?.fire_group).toBe(fireGroupOf(s!.id, '0 13 * * 1', 'Europe/Paris'));
  expect(after?.fire_group).not.toBe(doc?.fire_group);

  let fail = true;
  const flaky = {
    getById: (id: string) => repo.getById(id),
    inFireGroup: (g: string) => (fail ? Promise.reject(new Error('database unreachable')) : repo.inFireGroup(g)),
  };
  const reader = createFireReader({ schedules: flaky, clock: Date.now });
  const group = fireGroupOf(s!.id, '0 13 * * 1', 'Europe/Paris');
  await expect(reader.forFire(s!.id, group, 1)).rejects.toThrow('database unreachable');
  fail = false;
  expect((await reader.forFire(s!.id, group, 1))?.timezone).toBe('Europe/Paris');
});

test('a large group is read in one reply: no cursor is left open for a getMore (FerretDB holds a connection for it)', async () => {
  const [model] = await create(1, '0 3 * * *', 3000);
  const { _id: _ignored, ...doc } = (await conn
    .collection('schedules')
    .findOne({ _id: new (await import('@platform/db')).mongoose.Types.ObjectId(model!.id) }))!;
  await conn
    .collection('schedules')
    .insertMany(Array.from({ length: 250 }, () => ({ ...doc, fire_group: 'big-group' })));
  getMores.length = 0;
  expect(await repo.inFireGroup('big-group')).toHaveLength(250);
  expect(getMores).toEqual([]);
});
