/** The cron benchmark's schedules: created through the API or the repository, then awaited in Redis. */
import type { Queue } from '@platform/queue';
import { createScheduleRepository, type NewSchedule } from '@platform/scheduling';

import { out } from '../kit/bench-kit';
import { API_BUDGET_S, API_SAMPLE, CREATE, CREATE_CONCURRENCY, MIN, N, OWNER, s1, sleep } from './common';
import type { CronStack } from './stack';

/** Runs `count` tasks by `concurrency` loops; returns seconds taken. */
async function pool(count: number, concurrency: number, task: (i: number) => Promise<void>): Promise<number> {
  let next = 0;
  const t = performance.now();
  await Promise.all(
    Array.from({ length: Math.min(concurrency, count) }, async () => {
      for (let i = next++; i < count; i = next++) await task(i);
    }),
  );
  return (performance.now() - t) / 1000;
}

/** Creates the N schedules (CRON_BENCH_CREATE); returns when the first was sent and when the last was stored. */
export async function createSchedules({
  dbs,
  scheduler,
  target,
}: CronStack): Promise<{ createStart: number; created: number }> {
  const key = await dbs.mintKey(OWNER);
  const bodyOf = (i: number) => ({
    name: `cron-${i}`,
    url: `${target.url}/hit?s=${i}`,
    method: 'GET',
    cron_expression: '* * * * *',
    timezone: 'UTC',
  });
  const viaApi = async (i: number) => {
    const res = await fetch(`${scheduler.url}/http-schedules/`, {
      method: 'POST',
      headers: { 'x-api-key': key, 'content-type': 'application/json' },
      body: JSON.stringify(bodyOf(i)),
    });
    if (res.status !== 201) throw new Error(`POST /http-schedules/ → ${res.status} ${await res.text()}`);
    await res.arrayBuffer();
  };
  const repo = createScheduleRepository(dbs.conn);
  const viaRepo = async (i: number) => {
    const b = bodyOf(i);
    const fields: NewSchedule = {
      kind: 'http',
      agent_id: null,
      message: '',
      http: { name: b.name, url: b.url, method: 'GET', headers_sealed: {}, query: {}, body: null, timeout_ms: 10_000 },
      cron_expression: b.cron_expression,
      timezone: b.timezone,
      max_retries: 3,
      retry_delay: 60,
      overlap_policy: 'skip',
      is_active: true,
    };
    await repo.create(OWNER, fields, new Date());
  };
  const createStart = Date.now();
  const apiCount = CREATE === 'repo' ? 0 : CREATE === 'api' ? N : Math.min(N, API_SAMPLE);
  const apiSeconds = apiCount ? await pool(apiCount, CREATE_CONCURRENCY, viaApi) : 0;
  const apiRate = apiCount / apiSeconds;
  const rest = N - apiCount;
  let restApi = false;
  if (rest > 0 && CREATE === 'auto' && rest / apiRate <= API_BUDGET_S) restApi = true;
  const restSeconds =
    rest > 0 ? await pool(rest, CREATE_CONCURRENCY, (i) => (restApi ? viaApi : viaRepo)(apiCount + i)) : 0;
  const created = Date.now();
  if (apiCount) {
    out(
      `created ${apiCount} through POST /http-schedules/ (concurrency ${CREATE_CONCURRENCY}) in ${apiSeconds.toFixed(1)} s: ${apiRate.toFixed(0)}/s` +
        (N > apiCount ? ` (10,000 would take ~${(10_000 / apiRate).toFixed(0)} s)` : ''),
    );
  }
  if (rest > 0)
    out(
      `created ${rest} ${restApi ? 'through the API' : 'with the schedule repository (same collection; Redis left to the reconciler)'} in ${restSeconds.toFixed(1)} s: ${(rest / restSeconds).toFixed(0)}/s`,
    );
  return { createStart, created };
}

/** Waits until Redis has a job scheduler for every schedule; returns when it had. */
export async function waitForJobSchedulers(fires: Queue, createStart: number, created: number): Promise<number> {
  let inRedis = 0;
  const redisDeadline = Date.now() + 15 * MIN;
  while ((inRedis = await fires.getJobSchedulersCount()) < N) {
    if (Date.now() > redisDeadline) throw new Error(`only ${inRedis}/${N} job schedulers in Redis after 15 min`);
    await sleep(250);
  }
  const ready = Date.now();
  out(
    `all ${N} job schedulers in Redis ${s1(ready - created)} s after the last insert (${s1(ready - createStart)} s after the first)`,
  );
  return ready;
}
