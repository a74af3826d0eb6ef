import type { TrainInput } from '../graph/train.types';
import type { Task } from './task.schemas.types';

export type { Task as TaskView } from './task.schemas.types';

export type TaskStatus = Task['status'];

/** An asynchronous website training, as stored: what its owner sees (`Task`) with its owner and input. */
export interface TaskRecord extends Omit<Task, 'task_id'> {
  id: string;
  user_id: string;
  org_id: string;
  input: TrainInput;
}

/** The job on the graph crawl queue: the task id alone (the task in MongoDB is the truth). */
export interface CrawlJob {
  task_id: string;
}
