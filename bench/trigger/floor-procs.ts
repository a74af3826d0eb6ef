/**
 * The floor per process: three bare Node processes doing the durable work of a trigger's three processes with the
 * same drivers (libs/db's connection, BullMQ through libs/queue, node:http), none of our service code:
 * - intake (the scheduler's part): an HTTP server that checks the body's HMAC-SHA256 signature, parses the JSON,
 *   stores the execution (`insertOne`) and adds its job, then answers 202;
 * - worker: a BullMQ worker of the run concurrency that claims the execution (`updateOne` queued → running), POSTs
 *   its payload to the agent floor over keep-alive HTTP and records the end (`updateOne` running → succeeded);
 * - agent: an HTTP route that calls the LLM stand-in (OpenAI's chat completions) and stores the turn (`insertOne`).
 * `runProcessFloor` starts them, sends the same signed triggers at the same concurrency as the trigger benchmark,
 * waits for every run to end, and returns the CPU each process (and each store) spent per trigger meanwhile.
 * This file is also the processes' entry point (FLOOR_ROLE).
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { Agent, createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { resolve } from 'node:path';

import { connectMongo, mongoose } from '@platform/db';
import { defaultJobOptions, IORedis, Queue, Worker } from '@platform/queue';
import { startServiceProcess, testInfra, uniqueName, type ServiceProcess } from '@platform/testing';

import { postJson, readBody } from '../kit/http-json';
import { cpuGroups, spent, storeRules } from '../kit/proc-cpu';
import { deletePrefix } from '../kit/redis-prefix';
import { freshCollection, queuedDoc } from './floor-kit';

const env = (name: string) => {
  const v = process.env[name];
  if (!v) throw new Error(`${name} is not set`);
  return v;
};

const reply = (res: ServerResponse, status: number, body: unknown) => {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
};

function serve(handler: (req: IncomingMessage, res: ServerResponse) => Promise<void>) {
  createServer((req, res) => {
    if (req.url === '/readyz') return reply(res, 200, { status: 'ready' });
    handler(req, res).catch((err: unknown) => reply(res, 500, { error: String(err) }));
  }).listen(Number(env('PORT')), '127.0.0.1');
}

const FLOOR_WAIT_S = Number(process.env.BENCH_FLOOR_WAIT_S ?? 300);
const connection = () => new IORedis(env('REDIS_URL'), { maxRetriesPerRequest: null });

async function intake(): Promise<void> {
  const conn = await connectMongo({ uri: env('MONGODB_URI'), dbName: env('MONGODB_DB') });
  const executions = conn.collection(env('FLOOR_COLLECTION'));
  const queue = new Queue('floor-runs', { connection: connection(), prefix: env('QUEUE_PREFIX'), defaultJobOptions });
  const secret = Buffer.from(env('FLOOR_SECRET'), 'utf8');
  serve(async (req, res) => {
    const body = await readBody(req);
    const given = Buffer.from(String(req.headers['x-webhook-signature'] ?? '').replace(/^sha256=/, ''), 'hex');
    const expected = createHmac('sha256', secret).update(body).digest();
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) return reply(res, 401, {});
    // The execution as the repository stores it, queued.
    const doc = queuedDoc(req.url?.split('/').pop() ?? '', 0, JSON.parse(body.toString('utf8')) as object);
    await executions.insertOne(doc);
    const id = doc._id.toHexString();
    await queue.add('run', { id }, { jobId: id });
    reply(res, 202, { message: 'Webhook accepted', status: 'queued', execution_id: id });
  });
}

async function worker(): Promise<void> {
  const conn = await connectMongo({ uri: env('MONGODB_URI'), dbName: env('MONGODB_DB') });
  const executions = conn.collection(env('FLOOR_COLLECTION'));
  const agentUrl = new URL('/run', env('FLOOR_AGENT_URL'));
  const http = new Agent({ keepAlive: true, maxSockets: 64 });
  let ended = 0;
  const w = new Worker(
    'floor-runs',
    async (job) => {
      const _id = new mongoose.Types.ObjectId((job.data as { id: string }).id);
      const claim = await executions.findOneAndUpdate(
        { _id, status: 'queued' },
        { $set: { status: 'running', started_at: new Date() }, $inc: { attempt: 1 } },
        { returnDocument: 'after' }, // (FerretDB refuses a projection here)
      );
      if (!claim) throw new Error(`claim of ${_id.toHexString()} matched nothing`);
      const answer = (await postJson(http, agentUrl, { input: claim.payload })) as { response: string };
      await executions.updateOne(
        { _id, status: 'running' },
        { $set: { status: 'succeeded', finished_at: new Date(), response_output: answer.response } },
      );
      ended += 1;
    },
    {
      connection: connection(),
      prefix: env('QUEUE_PREFIX'),
      concurrency: Number(process.env.FLOOR_WORKER_CONCURRENCY ?? 64),
      removeOnComplete: defaultJobOptions.removeOnComplete as { count: number },
      removeOnFail: defaultJobOptions.removeOnFail as { count: number },
    },
  );
  w.on('failed', (job, err) => process.stderr.write(`floor worker: job ${job?.id} failed: ${err.message}\n`));
  w.on('error', (err) => process.stderr.write(`floor worker: ${err.message}\n`));
  await w.waitUntilReady();
  serve(async (_req, res) => reply(res, 200, { ended }));
}

async function agentRoute(): Promise<void> {
  const conn = await connectMongo({ uri: env('MONGODB_URI'), dbName: env('MONGODB_DB') });
  const turns = conn.collection(`${env('FLOOR_COLLECTION')}_turns`);
  const llm = new URL(`${env('FLOOR_LLM_BASE_URL')}/chat/completions`);
  const http = new Agent({ keepAlive: true, maxSockets: 64 });
  serve(async (req, res) => {
    const { input } = JSON.parse((await readBody(req)).toString('utf8')) as { input: unknown };
    const messages = [
      { role: 'system', content: 'Echo.' },
      { role: 'user', content: JSON.stringify(input) },
    ];
    const completion = (await postJson(http, llm, { model: 'm', messages })) as {
      choices: { message: { content: string } }[];
    };
    const response = completion.choices[0]?.message.content ?? '';
    await turns.insertOne({ agent_id: 'floor', messages: [...messages, { role: 'assistant', content: response }] });
    reply(res, 200, { response });
  });
}

export interface ProcessFloor {
  seconds: number;
  /** ms of CPU per trigger, by process (intake, worker, agent) and store (ferretdb, postgresql, redis). */
  perTrigger: Map<string, number>;
}

/**
 * Runs the three floor processes against `dbName` and the Redis at `redisUrl`; `send(url, secret, count)` sends
 * `count` triggers and resolves with how many were accepted: `warmup` of them unmeasured first, then `total`.
 */
export async function runProcessFloor(o: {
  dbName: string;
  redisUrl: string;
  llmBaseUrl: string;
  total: number;
  warmup: number;
  send: (url: string, secret: string, count: number) => Promise<number>;
}): Promise<ProcessFloor> {
  const script = resolve(__dirname, 'floor-procs.js');
  const secret = uniqueName('floorsecret');
  const common = {
    MONGODB_URI: testInfra.mongoUri,
    MONGODB_DB: o.dbName,
    REDIS_URL: o.redisUrl,
    QUEUE_PREFIX: uniqueName('benchprocfloor'),
    FLOOR_COLLECTION: uniqueName('bench_floor_procs'),
  };
  const procs: ServiceProcess[] = [];
  const prepare = await connectMongo({ uri: testInfra.mongoUri, dbName: o.dbName });
  try {
    // Created before any load (FerretDB stalls on a collection created under concurrent writes), with the
    // executions' indexes: the stores do the same index work as for ours.
    await freshCollection(prepare, common.FLOOR_COLLECTION);
    await prepare.createCollection(`${common.FLOOR_COLLECTION}_turns`);
    const agent = await startServiceProcess({
      script,
      env: { ...common, FLOOR_ROLE: 'agent', FLOOR_LLM_BASE_URL: o.llmBaseUrl },
    });
    procs.push(agent);
    const worker = await startServiceProcess({
      script,
      env: { ...common, FLOOR_ROLE: 'worker', FLOOR_AGENT_URL: agent.url },
    });
    procs.push(worker);
    const intake = await startServiceProcess({
      script,
      env: { ...common, FLOOR_ROLE: 'intake', FLOOR_SECRET: secret },
    });
    procs.push(intake);
    const cpu = cpuGroups({
      intake: { pids: [intake.child.pid!] },
      worker: { pids: [worker.child.pid!] },
      agent: { pids: [agent.child.pid!] },
      ...storeRules(Number(new URL(testInfra.mongoUri).port || 27017), Number(new URL(o.redisUrl).port || 6379)),
    });
    const url = `${intake.url}/t/${new mongoose.Types.ObjectId().toHexString()}`;
    /** Sends `count` triggers and waits until `ended` runs have ended in all. */
    const round = async (count: number, ended: number) => {
      const accepted = await o.send(url, secret, count);
      if (accepted !== count) throw new Error(`process floor: ${accepted} of ${count} triggers accepted`);
      const deadline = Date.now() + FLOOR_WAIT_S * 1000;
      for (;;) {
        const now = ((await (await fetch(`${worker.url}/ended`)).json()) as { ended: number }).ended;
        if (now >= ended) break;
        if (Date.now() > deadline)
          throw new Error(
            `process floor: ${now} of ${ended} runs ended after ${FLOOR_WAIT_S} s; worker: ${worker.output().slice(-2000)}; agent: ${agent.output().slice(-2000)}`,
          );
        await new Promise((r) => setTimeout(r, 250));
      }
    };
    if (o.warmup > 0) await round(o.warmup, o.warmup);
    const before = cpu.read();
    const started = performance.now();
    await round(o.total, o.warmup + o.total);
    const seconds = (performance.now() - started) / 1000;
    const used = spent(before, cpu.read());
    return { seconds, perTrigger: new Map([...used].map(([k, ms]) => [k, ms / o.total])) };
  } finally {
    await Promise.all(procs.map((p) => p.stop(5_000)));
    const redis = new IORedis(o.redisUrl, { maxRetriesPerRequest: null });
    await deletePrefix(redis, common.QUEUE_PREFIX);
    redis.disconnect();
    await prepare
      .collection(common.FLOOR_COLLECTION)
      .drop()
      .catch(() => undefined);
    await prepare
      .collection(`${common.FLOOR_COLLECTION}_turns`)
      .drop()
      .catch(() => undefined);
    await prepare.close();
  }
}

const ROLES: Record<string, () => Promise<void>> = { intake, worker, agent: agentRoute };
const role = process.env.FLOOR_ROLE;
if (require.main === module && role) {
  const start = ROLES[role];
  if (!start) throw new Error(`FLOOR_ROLE must be one of ${Object.keys(ROLES).join(', ')}`);
  // Ends through exit, so that a CPU profile asked for (SERVICE_CPU_PROF_DIR) is written, as the services' are.
  process.once('SIGTERM', () => process.exit(0));
  start().catch((err: unknown) => {
    process.stderr.write(`floor ${role}: ${err instanceof Error ? err.stack : String(err)}\n`);
    process.exit(1);
  });
}
