import type { Queue } from '@platform/queue';
import { runJobId, type AgentRunJob } from '@platform/scheduling';

import { eventually, startWorkerStack, type WorkerStack } from './worker-stack';

let s: WorkerStack;

beforeAll(async () => {
  s = await startWorkerStack();
}, 30_000);
afterAll(() => s.close(), 30_000);

const NOTHING_TO_RUN = 'execution already ended or unknown; nothing to run';
const skippedRuns = (executionId: string) =>
  s.lines.filter((l) => l.includes(NOTHING_TO_RUN) && l.includes(executionId)).length;

/** Redelivers a run job that has completed (BullMQ runs the same job again) and waits until it was handled. */
async function redeliver(queue: Queue<AgentRunJob>, jobId: string, executionId: string): Promise<void> {
  const before = skippedRuns(executionId);
  const job = await queue.getJob(jobId);
  expect(job).toBeDefined();
  await job!.retry('completed');
  await eventually('the redelivered job', async () => (skippedRuns(executionId) > before ? true : undefined));
  await s.waitJob(queue, jobId);
}

describe('a run that has ended is not run again', () => {
  it('a succeeded agent run whose job is redelivered', async () => {
    const exec = await s.triggerWebhookRun({ payload: 'once only' });
    const done = await s.waitEnded(exec.id);
    expect(done).toMatchObject({ status: 'succeeded', attempt: 1 });
    await s.waitJob(s.queues.agentRuns, exec.id);

    await redeliver(s.queues.agentRuns, exec.id, exec.id);
    expect(s.agentCallsOf(exec.id)).toHaveLength(1);
    expect(await s.executions.get(exec.id)).toEqual(done);
  });

  it('a failed agent run put on the queue again under another job id (as the recovery rule does)', async () => {
    s.setAgent((_req, res) => {
      res.statusCode = 404;
      res.setHeader('content-type', 'application/json');
      res.end('{"detail":"Agent not found"}');
    });
    try {
      const exec = await s.triggerWebhookRun({ payload: 'gone agent', max_attempts: 3 });
      const done = await s.waitEnded(exec.id);
      expect(done).toMatchObject({ status: 'failed', attempt: 1 });

      const again = await s.enqueue(done, runJobId(exec.id, 1));
      await s.waitJob(s.queues.agentRuns, again);
      expect(skippedRuns(exec.id)).toBe(1);
      expect(s.agentCallsOf(exec.id)).toHaveLength(1);
      expect(await s.executions.get(exec.id)).toEqual(done);
    } finally {
      s.setAgent((req, res) => {
        res.setHeader('content-type', 'application/json');
        res.end(JSON.stringify({ response: `echo: ${(req.json as { message: string }).message}` }));
      });
    }
  });

  it('a succeeded HTTP run whose job is redelivered does not call the endpoint again', async () => {
    const schedule = await s.createHttpSchedule({ url: `${s.target.url}/once`, method: 'POST', body: { n: 1 } });
    const exec = await s.runNow(schedule);
    const done = await s.waitEnded(exec.id);
    expect(done).toMatchObject({ status: 'succeeded', response_output: 'ok' });
    await s.waitJob(s.queues.httpCalls, exec.id);

    await redeliver(s.queues.httpCalls, exec.id, exec.id);
    expect(s.target.requests.filter((r) => r.url === '/once')).toHaveLength(1);
    expect(await s.executions.get(exec.id)).toEqual(done);
  });

  it('a job of an execution that no longer exists completes without running anything', async () => {
    const exec = await s.storeExecution({
      kind: 'webhook',
      webhook_id: '0123456789abcdef01234567',
      agent_id: '9',
      user_id: 'alice',
      org_id: 'acme',
      payload: 'deleted',
      max_attempts: 1,
    });
    await s.executions.delete(exec.id);
    await s.enqueue(exec);
    await s.waitJob(s.queues.agentRuns, exec.id);
    expect(skippedRuns(exec.id)).toBe(1);
    expect(s.agentCallsOf(exec.id)).toHaveLength(0);
    expect(await s.executions.get(exec.id)).toBeNull();
  });
});

describe('a run enqueued twice', () => {
  it('the trigger’s add and an outbox sweep racing it make one job and one run', async () => {
    const exec = await s.storeExecution({
      kind: 'webhook',
      webhook_id: '0123456789abcdef01234567',
      agent_id: '8',
      user_id: 'alice',
      org_id: 'acme',
      payload: 'dup',
      max_attempts: 3,
    });
    const ids = await Promise.all([s.enqueue(exec), s.enqueue(exec)]);
    expect(ids).toEqual([exec.id, exec.id]);
    const done = await s.waitEnded(exec.id);
    await s.waitJob(s.queues.agentRuns, exec.id);
    expect(done).toMatchObject({ status: 'succeeded', attempt: 1 });
    expect(s.agentCallsOf(exec.id)).toHaveLength(1);
  });
});
