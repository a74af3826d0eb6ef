// Generated from task.schemas.ts by `pnpm schemas:types` (scripts/schema-types.cjs): edit the schemas, not this file.

import type { CrawlError } from '../crawl/crawl.schemas.types';

export interface Task {
  task_id: string;
  rag_id: string;
  status: 'queued' | 'running' | 'completed' | 'failed';
  pages_crawled: number;
  pages_trained: number;
  errors: CrawlError[];
  error: string | null;
  attempts: number;
  created_at: string;
  updated_at: string;
}

export interface TaskPath {
  task_id: string;
}
