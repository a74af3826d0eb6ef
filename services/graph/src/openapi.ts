/**
 * OpenAPI description of the graph service, served at /openapi.json and rendered at /docs. The paths come from the
 * route tables (`graph/graph.routes.ts`, `tasks/task.routes.ts`), the shapes from the joi schemas
 * (`graph/graph.schemas.ts`, `tasks/task.schemas.ts`).
 */
import { schemaComponents, serviceDocument } from '@platform/http';

import { crawlError } from './crawl/crawl.schemas';
import { graphRoutes } from './graph/graph.routes';
import {
  deleteSourcesBody,
  graph,
  graphDeleted,
  graphEdge,
  graphNode,
  retrieval,
  retrievedChunk,
  retrievedFact,
  taskQueued,
  trainBody,
  trainResult,
} from './graph/graph.schemas';
import { taskRoutes } from './tasks/task.routes';
import { task } from './tasks/task.schemas';

export const openapi = serviceDocument({
  title: 'Graph service',
  description:
    'Knowledge graphs per RAG configuration, trained from crawled websites; graph reads and chunk retrieval.',
  schemas: schemaComponents({
    request: [trainBody, deleteSourcesBody],
    response: [
      trainResult,
      graphDeleted,
      taskQueued,
      crawlError,
      task,
      graphNode,
      graphEdge,
      graph,
      retrievedChunk,
      retrievedFact,
      retrieval,
    ],
  }),
  routes: [...graphRoutes, ...taskRoutes],
});
