// Generated from task.schemas.ts by `pnpm schemas:types` (scripts/schema-types.cjs): edit the schemas, not this file.

export interface TaskFailBody {
  error: string;
}

export interface TaskRunBody {
  /**
   * A transient failure now ends the task
   */
  final: boolean;
}

export interface Task {
  task_id: string;
  status: 'queued' | 'running' | 'completed' | 'failed';
  /**
   * The chat reply, once completed
   */
  result?: {
    response: string;
    session_id: string;
    agent_id: string;
  };
  /**
   * The same reply as `result`, under the name clients of the hosted API read
   */
  response?: {
    response: string;
    session_id: string;
    agent_id: string;
  };
  /**
   * Why it failed, or the last transient failure while it is retried
   */
  error?: string;
  created_at: string;
  updated_at: string;
}

export interface TaskAccepted {
  task_id: string;
  status: 'queued';
}

export interface TaskPath {
  task_id: string;
}

export interface TaskState {
  task_id: string;
  status: 'queued' | 'running' | 'completed' | 'failed';
}
