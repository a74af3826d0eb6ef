import type { CrawlError } from '../crawl/crawl.types';
import type { Owner } from '../graph/graph.types';
import type { TrainInput } from '../graph/train.types';

export type TaskStatus = 'queued' | 'running' | 'completed' | 'failed';

/** An asynchronous website training, as stored. */
export interface TaskRecord {
  id: string;
  user_id: string;
  org_id: string;
  rag_id: string;
  status: TaskStatus;
  input: TrainInput;
  pages_crawled: number;
  pages_trained: number;
  errors: CrawlError[];
  error: string | null;
  attempts: number;
  created_at: string;
  updated_at: string;
}

/** GET /v4/knowledge_graph/task/{id}: the record without its owner and input, its id as `task_id`. */
export type TaskView = Omit<TaskRecord, 'id' | 'user_id' | 'org_id' | 'input'> & { task_id: string };

/** The job on the graph crawl queue: the task id alone (the task in MongoDB is the truth). */
export interface CrawlJob {
  task_id: string;
}

export type { Owner };
