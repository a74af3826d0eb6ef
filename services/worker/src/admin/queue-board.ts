import { createBullBoard } from '@bull-board/api';
import { BullMQAdapter } from '@bull-board/api/bullMQAdapter';
import { ExpressAdapter } from '@bull-board/express';
import { Router, type RequestHandler } from 'express';

import type { Queue } from '@platform/queue';

import { requireAdminToken } from './admin-token';

/** Where the queue dashboard is served. */
export const BOARD_PATH = '/admin/queues';

export interface QueueBoardOptions {
  /** WORKER_ADMIN_TOKEN. */
  token: string;
  /** The queues shown. */
  queues: Queue[];
}

/** Anything but a read: the dashboard shows queues and jobs and changes nothing (405). */
const readOnly: RequestHandler = (req, res, next) => {
  if (req.method === 'GET' || req.method === 'HEAD') return next();
  res.status(405).set('allow', 'GET, HEAD').json({ detail: 'The queue dashboard is read-only' });
};

/**
 * Bull Board over `queues` at /admin/queues, behind the admin token and read-only twice over: every queue is given
 * to the board in its read-only mode (no retry, clean, pause or add in the UI or its API), and any request that is
 * not a read is refused before the board sees it.
 */
export function createQueueBoard(opts: QueueBoardOptions): Router {
  const adapter = new ExpressAdapter().setBasePath(BOARD_PATH);
  createBullBoard({
    queues: opts.queues.map((q) => new BullMQAdapter(q, { readOnlyMode: true })),
    serverAdapter: adapter,
    options: { uiConfig: { boardTitle: 'Worker queues' } },
  });
  const router = Router();
  router.use(BOARD_PATH, requireAdminToken(opts.token), readOnly, adapter.getRouter() as RequestHandler);
  return router;
}
