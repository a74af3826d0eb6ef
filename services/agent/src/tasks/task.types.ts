import type { ChatInput, Owner } from '../inference/inference.types';

export type { ChatInput, Owner };

export type TaskStatus = 'queued' | 'running' | 'completed' | 'failed';

/** A task as the API returns it (contract §7). */
export interface TaskView {
  task_id: string;
  status: TaskStatus;
  result?: { response: string; session_id: string; agent_id: string };
  error?: string;
  created_at: string;
  updated_at: string;
}

/** A stored task: its view, its owner and the chat body it runs. */
export interface TaskRecord extends TaskView {
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
