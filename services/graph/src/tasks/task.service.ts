import type { Owner } from '@platform/db';
import { AppError, NotFoundError, ServiceUnavailableError, ValidationError } from '@platform/errors';
import type { Logger } from '@platform/logger';

import type { CrawlError } from '../crawl/crawl.types';
import type { TaskQueued } from '../graph/graph.schemas.types';
import type { GraphService } from '../graph/graph.service';
import type { TrainInput } from '../graph/train.types';
import type { TaskRepository } from './task.repository';
import type { TaskRecord, TaskView } from './task.types';

export interface TaskServiceDeps {
  repo: TaskRepository;
  graph: GraphService;
  /** Puts the task on the crawl queue (job id = task id, so a repeat is harmless); rejects when the queue is away. */
  enqueue(taskId: string): Promise<void>;
  clock: () => Date;
  logger: Logger;
}

const MAX_ERRORS = 100;

/** A failed task's `error`: the refusal's entries (e.g. each start URL and why it gave no page), else its detail. */
const failureOf = (err: unknown): string => {
  if (err instanceof ValidationError) return err.errors.map((e) => e.msg).join('; ');
  return err instanceof AppError ? err.message : 'Training failed';
};

const view = (t: TaskRecord): TaskView => ({
  task_id: t.id,
  rag_id: t.rag_id,
  status: t.status,
  pages_crawled: t.pages_crawled,
  pages_trained: t.pages_trained,
  errors: t.errors,
  error: t.error,
  attempts: t.attempts,
  created_at: t.created_at,
  updated_at: t.updated_at,
});

/** How a run of a task ended: finished (completed or failed), or interrupted and to be resumed. */
export type RunOutcome = 'finished' | 'interrupted';

/** Asynchronous website trainings: queued here, run by the crawl consumer, read by their owner. */
export function createTaskService(deps: TaskServiceDeps) {
  const { repo, clock } = deps;
  return {
    async start(owner: Owner, ragId: string, input: TrainInput): Promise<TaskQueued> {
      await deps.graph.checkOwner(owner, ragId);
      const task = await repo.create(owner, ragId, input, clock());
      try {
        await deps.enqueue(task.id);
      } catch (err) {
        deps.logger.warn('crawl task not queued', { task_id: task.id, err: (err as Error).message });
        await repo.update(task.id, { status: 'failed', error: 'The crawl queue was unavailable' }, clock());
        throw new ServiceUnavailableError(err);
      }
      return { task_id: task.id, rag_id: ragId, status: 'queued' };
    },
    async get(owner: Owner, id: string): Promise<TaskView> {
      const t = await repo.get(owner, id, clock());
      if (!t) throw new NotFoundError('Task');
      return view(t);
    },
    /**
     * Runs a queued task (the consumer's processor). Pages are stored as they are trained, so an interrupted run
     * resumed later trains the same pages again with the same result (training is idempotent per URL).
     */
    async run(taskId: string, signal: AbortSignal): Promise<RunOutcome> {
      const task = await repo.byId(taskId);
      if (!task || task.status === 'completed' || task.status === 'failed') return 'finished';
      const owner = { user_id: task.user_id, org_id: task.org_id };
      const errors: CrawlError[] = [];
      await repo.update(
        taskId,
        { status: 'running', attempts: task.attempts + 1, pages_crawled: 0, pages_trained: 0, errors: [], error: null },
        clock(),
      );
      try {
        const result = await deps.graph.train(owner, task.rag_id, task.input, {
          signal,
          onError: (e) => {
            if (errors.length < MAX_ERRORS) errors.push(e);
          },
          onPage: (trained) => repo.update(taskId, { pages_crawled: trained, pages_trained: trained, errors }, clock()),
        });
        if (result.aborted && signal.aborted) {
          await repo.update(taskId, { status: 'queued', errors }, clock());
          return 'interrupted';
        }
        await repo.update(
          taskId,
          { status: 'completed', pages_crawled: result.pages_trained, pages_trained: result.pages_trained, errors },
          clock(),
        );
        return 'finished';
      } catch (err) {
        const message = failureOf(err);
        if (!(err instanceof AppError))
          deps.logger.error('crawl task failed', { task_id: taskId, err: (err as Error).message });
        await repo.update(taskId, { status: 'failed', error: message, errors }, clock());
        return 'finished';
      }
    },
  };
}

export type TaskService = ReturnType<typeof createTaskService>;
