/**
 * What the floors share (floor.ts's run floor, floor-cron.ts's cron floor, floor-procs.ts's processes): a fresh
 * collection with the executions' indexes, queues under a prefix of their own, the queued execution a trigger stores
 * and the run's claim and finish.
 */
import { mongoose, prepareLookups, type Connection } from '@platform/db';
import { defaultJobOptions, IORedis, Queue, Worker } from '@platform/queue';
import { executionModel } from '@platform/scheduling';
import { uniqueName } from '@platform/testing';

import { executionDoc } from '../kit/executions';
import { deletePrefix } from '../kit/redis-prefix';

/**
 * A fresh collection `name` with the executions' indexes, ready before any load. The index specs are read from
 * the execution schema through a handle that neither creates collections nor builds indexes.
 */
export async function freshCollection(conn: Connection, name: string) {
  const shadow = conn.useDb(conn.name, { useCache: false });
  shadow.set('autoIndex', false);
  shadow.set('autoCreate', false);
  const schema = executionModel(shadow).schema;
  await conn.createCollection(name);
  const coll = conn.collection(name);
  await coll.createIndexes(
    schema.indexes().map(([key, options]) => ({ ...(options as object), key: key as Record<string, 1 | -1> })),
  );
  await prepareLookups(
    conn,
    name,
    schema.indexes().map(([key]) => Object.keys(key)[0]!),
  );
  return coll;
}

/** A queue and a worker connection under a prefix of their own; `close` removes every key of the prefix. */
export function queueKit(url: string) {
  const prefix = uniqueName('benchfloor');
  const producer = new IORedis(url, { maxRetriesPerRequest: null });
  const consumer = new IORedis(url, { maxRetriesPerRequest: null });
  const queues: Queue[] = [];
  const workers: Worker[] = [];
  return {
    queue(name: string): Queue {
      const q = new Queue(name, { connection: producer, prefix, defaultJobOptions: { ...defaultJobOptions } });
      queues.push(q);
      return q;
    },
    worker(name: string, concurrency: number, process: (id: string) => Promise<void>): Worker {
      const w: Worker = new Worker(name, (job) => process((job.data as { id: string }).id), {
        connection: consumer,
        prefix,
        concurrency,
        removeOnComplete: defaultJobOptions.removeOnComplete as { count: number },
        removeOnFail: defaultJobOptions.removeOnFail as { count: number },
      });
      workers.push(w);
      return w;
    },
    async close() {
      for (const w of workers) await w.close().catch(() => undefined);
      for (const q of queues) await q.obliterate({ force: true }).catch(() => undefined);
      for (const q of queues) await q.close().catch(() => undefined);
      await deletePrefix(producer, prefix);
      producer.disconnect();
      consumer.disconnect();
    },
  };
}

/** A new queued execution of item `i`, as a trigger stores it (the ended fields reset). */
export function queuedDoc(webhookId: string, i: number, payload: object) {
  return {
    ...executionDoc(webhookId, { user_id: 'floor', org_id: 'floor' }, i, new Date()),
    status: 'queued',
    success: null,
    attempt: 0,
    started_at: null,
    finished_at: null,
    duration_ms: null,
    response_status: null,
    response_output: null,
    error_message: null,
    payload,
  };
}

/**
 * A run as the floor does it: one conditional `updateOne` claims it (queued → running; `started` is told then), one
 * finishes it (running → succeeded); either matching nothing fails the job.
 */
export async function claimAndFinish(
  runs: ReturnType<Connection['collection']>,
  id: string,
  output: string,
  started?: () => void,
  call?: () => Promise<unknown>,
): Promise<void> {
  const _id = new mongoose.Types.ObjectId(id);
  const claim = await runs.updateOne(
    { _id, status: 'queued' },
    { $set: { status: 'running', started_at: new Date() }, $inc: { attempt: 1 } },
  );
  if (claim.modifiedCount !== 1) throw new Error(`floor: claim of ${id} matched ${claim.matchedCount}`);
  started?.();
  await call?.();
  const finish = await runs.updateOne(
    { _id, status: 'running' },
    { $set: { status: 'succeeded', finished_at: new Date(), response_output: output } },
  );
  if (finish.modifiedCount !== 1) throw new Error(`floor: finish of ${id} matched ${finish.matchedCount}`);
}
