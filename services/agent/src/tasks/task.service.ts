import { randomUUID } from 'node:crypto';

import { AppError, NotFoundError, ServiceUnavailableError } from '@platform/errors';
import type { Logger } from '@platform/logger';

import type { TaskRepository } from './task.repository';
import type { ChatInput, Owner, TaskQueue, TaskStatus, TaskView } from './task.types';

/** Tasks are kept this long after they were submitted. */
export const TASK_RETENTION_MS = 7 * 24 * 3600 * 1000;

export interface TaskServiceDeps {
  repo: TaskRepository;
  /** Absent: this process has no queue, so tasks are refused with 503. */
  queue?: TaskQueue;
  /** Runs one chat as the owner; its errors carry chat's statuses. */
  chat: (owner: Owner, input: ChatInput) => Promise<{ response: string; session_id: string; agent_id: string }>;
  /** Checks that the owner has the agent (404 otherwise) before a task is accepted. */
  checkAgent: (owner: Owner, agentId: string) => Promise<unknown>;
  clock: () => Date;
  logger: Logger;
}

const notFound = () => new NotFoundError('Task');
const view = ({ task_id, status, result, error, created_at, updated_at }: TaskView): TaskView => ({
  task_id,
  status,
  ...(result ? { result, response: result } : {}),
  ...(error ? { error } : {}),
  created_at,
  updated_at,
});

/** A failure worth another attempt: the provider or a store of ours was away, not a refusal of the request. */
const transient = (err: unknown) => !(err instanceof AppError) || err.status >= 500 || err.status === 429;
const messageOf = (err: unknown): string =>
  err instanceof AppError ? (typeof err.detail === 'string' ? err.detail : err.message) : 'internal error';

/**
 * Chat runs in the background: a task is stored, then handed to the queue, and the worker asks this service to run
 * each attempt (so the task's state stays in this service's database). A task is acknowledged (202) only once both
 * the database and the queue have it.
 */
export function createTaskService(deps: TaskServiceDeps) {
  const log = deps.logger.child({ module: 'tasks' });
  return {
    async submit(owner: Owner, input: ChatInput): Promise<{ task_id: string; status: 'queued' }> {
      if (!deps.queue) throw new ServiceUnavailableError(undefined, 'Task queue is not configured');
      await deps.checkAgent(owner, String(input.agent_id));
      const id = randomUUID();
      const now = deps.clock();
      await deps.repo.create(owner, id, input, now, TASK_RETENTION_MS);
      try {
        await deps.queue.add({ task_id: id, ...owner });
      } catch (err) {
        log.warn('task not queued; refused', { task_id: id, err: (err as Error).message });
        await deps.repo
          .fail(owner, id, 'not accepted: the task queue was unavailable', deps.clock())
          .catch(() => undefined);
        throw new ServiceUnavailableError(err, 'Task queue unavailable');
      }
      return { task_id: id, status: 'queued' };
    },

    async get(owner: Owner, id: string): Promise<TaskView> {
      const task = await deps.repo.get(owner, id, deps.clock());
      if (!task) throw notFound();
      return view(task);
    },

    /**
     * One attempt (the worker's call). Success or a refusal (4xx: the agent is gone, the body no longer valid) ends
     * the task; a transient failure puts it back to queued and is rethrown so the worker retries, unless `final`.
     */
    async run(owner: Owner, id: string, final: boolean): Promise<{ task_id: string; status: TaskStatus }> {
      const task = await deps.repo.claim(owner, id, deps.clock());
      if (!task) {
        const current = await deps.repo.get(owner, id, deps.clock());
        if (!current) throw notFound();
        return { task_id: id, status: current.status }; // ended already: a redelivered job runs nothing
      }
      try {
        const result = await deps.chat(owner, task.input);
        await deps.repo.complete(owner, id, result, deps.clock());
        return { task_id: id, status: 'completed' };
      } catch (err) {
        const message = messageOf(err);
        if (transient(err) && !final) {
          await deps.repo.requeue(owner, id, message, deps.clock());
          throw err;
        }
        log.info('task failed', { task_id: id, attempt: task.attempts, err: message });
        await deps.repo.fail(owner, id, message, deps.clock());
        return { task_id: id, status: 'failed' };
      }
    },

    /** Ends a task the queue gave up on; one that ended already is left as it is. */
    async giveUp(owner: Owner, id: string, error: string): Promise<{ task_id: string; status: TaskStatus }> {
      const failed = await deps.repo.fail(owner, id, error, deps.clock());
      if (failed) return { task_id: id, status: 'failed' };
      return { task_id: id, status: (await this.get(owner, id)).status };
    },
  };
}

export type TaskService = ReturnType<typeof createTaskService>;
