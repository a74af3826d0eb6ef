/** OpenAPI description of the worker's HTTP surface, served at /openapi.json and rendered at /docs. */
import { errorSchemas, jsonContent as json } from '@platform/http';

import { BOARD_PATH } from './admin/queue-board';

const error = { $ref: '#/components/schemas/Error' };

/** The dashboard's operation: only when WORKER_ADMIN_TOKEN is set (otherwise nothing is served there). */
const boardPaths = {
  [BOARD_PATH]: {
    get: {
      summary: 'Queue dashboard (Bull Board), read-only',
      description:
        'Every queue of the platform with its jobs. The page and its API under this path need the admin token: ' +
        '`Authorization: Bearer <token>`, or Basic with the token as the password (browsers prompt for it), or `x-admin-token`. ' +
        'Anything but GET or HEAD under this path → 405.',
      security: [{ adminBearer: [] }, { adminBasic: [] }],
      responses: {
        '200': { description: 'The dashboard page', content: { 'text/html': { schema: { type: 'string' } } } },
        '401': { description: 'Admin token missing or invalid', ...json(error) },
        '405': { description: 'Not a read: the dashboard changes nothing', ...json(error) },
      },
    },
  },
};

/** The worker's document; the dashboard is listed when it is mounted. */
export function workerOpenapi(opts: { admin: boolean }) {
  return {
    openapi: '3.1.0',
    info: {
      title: 'Worker',
      version: '1.1.0',
      description: 'Operations endpoints, and the queue dashboard when an admin token is configured.',
    },
    components: {
      schemas: errorSchemas,
      securitySchemes: {
        adminBearer: { type: 'http', scheme: 'bearer' },
        adminBasic: { type: 'http', scheme: 'basic' },
      },
    },
    paths: opts.admin ? boardPaths : {},
  };
}
