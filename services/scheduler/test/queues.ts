import { createQueue, QUEUE_NAMES, within, type Queue, type RedisConnection } from '@platform/queue';
import { createRepeatStrategy, type AgentRunJob, type FireJob, type RunQueues } from '@platform/scheduling';

export interface TestQueues {
  queues: RunQueues;
  fires: Queue<FireJob>;
  /** Removes every job of the three queues and closes them. */
  close(): Promise<void>;
}

/** The scheduler's producer queues on `redis` under `prefix`; `now` drives cron fire computation (tests move it). */
export function createTestQueues(redis: RedisConnection, prefix: string, now: () => number = Date.now): TestQueues {
  const queues = {
    agentRuns: createQueue<AgentRunJob>(QUEUE_NAMES.agentRuns, redis, {}, prefix),
    httpCalls: createQueue<AgentRunJob>(QUEUE_NAMES.httpCalls, redis, {}, prefix),
  };
  const fires = createQueue<FireJob>(QUEUE_NAMES.scheduleFires, redis, {}, prefix, createRepeatStrategy(now));
  const all: Queue[] = [queues.agentRuns, queues.httpCalls, fires];
  for (const q of all) q.on('error', () => undefined);
  return {
    queues,
    fires,
    async close() {
      for (const q of all) {
        // Bounded: a test may have taken Redis away.
        await within(2_000, q.obliterate({ force: true })).catch(() => undefined);
        await within(2_000, q.close()).catch(() => undefined);
      }
    },
  };
}
