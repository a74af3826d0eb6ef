import type { ChatInput, Owner } from '../inference/inference.types';
import type { Task } from './task.schemas.types';

export type { ChatInput, Owner };
export type { Task as TaskView } from './task.schemas.types';

export type TaskStatus = Task['status'];

/** A stored task: its view, its owner and the chat body it runs. */
export interface TaskRecord extends Task {
  user_id: string;
  org_id: string;
  input: ChatInput;
  attempts: number;
  expires_at: string;
}

/** Hands a task to the queue; fails (and the task is not accepted) when the queue cannot take it in time. */
export interface TaskQueue {
  add(job: { task_id: string; user_id: string; org_id: string }): Promise<void>;
}
