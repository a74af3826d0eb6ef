import { withLogContext, type Logger } from '@platform/logger';
import { createWorker, DelayedError, type Job, type RedisConnection, type TracedJob } from '@platform/queue';
import type { Unit } from '@platform/service';

import type { TaskService } from './task.service';
import type { CrawlJob } from './task.types';

/** The graph service's crawl queue (its own consumer takes the jobs: see the service README). */
export const CRAWL_QUEUE = 'graph-crawls';

export interface CrawlConsumerDeps {
  tasks: TaskService;
  connection: RedisConnection;
  logger: Logger;
  prefix: string;
  concurrency: number;
  /** How long a job's lock lasts without renewal: a consumer that died loses its job to another after it. */
  lockDurationMs: number;
  stalledIntervalMs: number;
}

/**
 * Takes crawl jobs from the queue and runs their tasks. On stop, running crawls are told to stop; their jobs go
 * back on the queue (delayed to "now") and the next consumer to start resumes them. A consumer that dies without
 * stopping loses its jobs to BullMQ's stalled-job check, with the same result.
 */
export function startCrawlConsumer(deps: CrawlConsumerDeps): Unit {
  const stopping = new AbortController();
  const worker = createWorker<CrawlJob>(
    CRAWL_QUEUE,
    async (job: Job<CrawlJob>, token?: string) => {
      // Under the id of the request that queued the crawl (`traced` in libs/queue), so its log lines and calls share it.
      const requestId = (job.data as CrawlJob & TracedJob).request_id ?? `job:${CRAWL_QUEUE}:${String(job.id)}`;
      const outcome = await withLogContext({ requestId }, () => deps.tasks.run(job.data.task_id, stopping.signal));
      if (outcome === 'interrupted' && token) {
        await job.moveToDelayed(Date.now(), token);
        throw new DelayedError();
      }
    },
    deps.connection,
    {
      prefix: deps.prefix,
      concurrency: deps.concurrency,
      lockDuration: deps.lockDurationMs,
      stalledInterval: deps.stalledIntervalMs,
      maxStalledCount: 3,
    },
  );
  worker.on('error', (err) => deps.logger.warn('crawl consumer error', { err: err.message }));
  let closed: Promise<void> | null = null;
  const stop = () => {
    closed ??= (async () => {
      stopping.abort();
      await worker.close();
    })();
    return closed;
  };
  return { name: 'graph crawl consumer', stop };
}
