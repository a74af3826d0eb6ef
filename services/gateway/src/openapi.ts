/** OpenAPI description of the gateway, served at /openapi.json: routing, and the operations console's page. */
import { openapiPaths } from '@platform/http';

import { consolePageRoutes } from './console';
import { ROUTE_TABLE } from './routes';

export const openapi = {
  openapi: '3.1.0',
  info: {
    title: 'Gateway',
    version: '1.0.0',
    description: `One host for the whole API, routed by path prefix: ${ROUTE_TABLE.map((r) => `${r.prefixes.join(', ')} → ${r.service}`).join('; ')}. Each service's own document is at its /openapi.json.`,
  },
  paths: openapiPaths(consolePageRoutes),
};
