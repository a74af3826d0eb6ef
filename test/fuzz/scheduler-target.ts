/** The scheduler app, with an agent (in a real agent service process), webhooks and schedules of both kinds. */
import { createHmac } from 'node:crypto';
import request from 'supertest';

import { listen, type RunningServer } from '@platform/http';

import { startSchedulerApp } from '../../services/scheduler/test/helpers';
import type { Operation } from './openapi-operations';
import {
  created,
  CRONS,
  errorLogReader,
  openapiOf,
  OTHER,
  OWNER,
  poolFor,
  times,
  type Pools,
  type Target,
} from './target-kit';

/** The scheduler app beside a real agent service process, with an agent, webhooks and both kinds of schedules. */
export async function startSchedulerTarget(): Promise<Target> {
  const t = await startSchedulerApp();
  let server: RunningServer | undefined;
  try {
    const key = await t.dbs.mintKey(OWNER);
    const otherKey = await t.dbs.mintKey(OTHER);
    const agentId = await t.createAgent(key);
    const post = (path: string, body: object) => request(t.app).post(path).set('x-api-key', key).send(body);
    const webhook = async () => {
      const res = await post('/agent-webhooks/', { agent_id: agentId, description: 'fuzz' });
      if (res.status !== 201) throw new Error(`webhook fixture answered ${res.status}: ${res.text}`);
      return res.body as { id: string; secret_key: string };
    };
    const agentSchedule = () =>
      created(post('/schedules/', { agent_id: agentId, cron_expression: '0 9 * * *', message: 'fuzz' }), 'id');
    const httpSchedule = () =>
      created(
        post('/http-schedules/', { name: 'fuzz', url: 'https://example.com/hook', cron_expression: '0 9 * * *' }),
        'id',
      );
    const readHook = await webhook();
    const webhooks: Pools = {
      read: [readHook.id],
      write: (await times(2, webhook)).map((w) => w.id),
      delete: (await times(3, webhook)).map((w) => w.id),
    };
    const schedules: Pools = {
      read: await times(1, agentSchedule),
      write: await times(2, agentSchedule),
      delete: await times(3, agentSchedule),
    };
    const httpSchedules: Pools = {
      read: await times(1, httpSchedule),
      write: await times(2, httpSchedule),
      delete: await times(3, httpSchedule),
    };
    server = await listen(t.app, 0, undefined, '127.0.0.1');
    const pathIds = (op: Operation, param: string): string[] => {
      if (param === 'agent_id') return [agentId];
      if (param === 'webhook_id') return poolFor(op, webhooks);
      if (param === 'schedule_id')
        return poolFor(op, op.path.startsWith('/http-schedules') ? httpSchedules : schedules);
      return [];
    };
    const running = server;
    return {
      app: t.app,
      port: server.port,
      doc: await openapiOf(t.app),
      ctx: {
        apiKey: key,
        otherApiKey: otherKey,
        newErrorLogs: errorLogReader(t.lines),
        pathIds,
        known: {
          agent_id: [agentId],
          cron_expression: CRONS,
          timezone: ['UTC', 'Asia/Calcutta', 'America/New_York', 'Europe/Berlin'],
          url: ['https://example.com/hook', 'http://example.org/path?q=1'],
          method: ['GET', 'POST', 'DELETE'],
        },
        // Only the read webhook's secret stays the same (the others may be given new ones): sign for it.
        sign: (values, body): Record<string, string> =>
          values.webhook_id === readHook.id
            ? {
                'x-webhook-signature': `sha256=${createHmac('sha256', Buffer.from(readHook.secret_key, 'utf8')).update(body).digest('hex')}`,
              }
            : {},
      },
      close: async () => {
        await running.close(1_000);
        await t.close();
      },
    };
  } catch (err) {
    await server?.close(0);
    await t.close();
    throw err;
  }
}
