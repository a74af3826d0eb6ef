import { join } from 'node:path';
import express, { Router } from 'express';

import { mountRoutes, route, type Route } from '@platform/http';

/** Where the console's files are: `console/` beside `src/` and `dist/` (the package's own folder in an image too). */
export const CONSOLE_DIR = join(__dirname, '..', 'console');

const html = { 'text/html': { schema: { type: 'string' } } };

/** GET /console (and /console/: routing is not strict): the page, never cached. Deps: the console's folder. */
export const consolePageRoutes: Route<string>[] = [
  route({
    method: 'get',
    path: '/console',
    operationId: 'console',
    summary: 'The operations console (a browser page over the public API; log in with an API key)',
    standardResponses: false,
    responses: { '200': { description: 'The page', content: html } },
    openapi: { tags: ['console'] },
    handle: (dir: string, { res }) =>
      new Promise<void>((resolve, reject) => {
        res.set('cache-control', 'no-store');
        res.sendFile(join(dir, 'index.html'), (err) => (err ? reject(err) : resolve()));
      }),
  }),
];

/**
 * The operations console (`console/`: one HTML page, a script and a style sheet, no build step, nothing from
 * outside): `GET /console` and `/console/` answer the page, `/console/<file>` its files. The page calls the public
 * API through this same gateway with the API key the user gives it, kept in the tab's session storage only. Helmet's
 * content security policy (scripts and styles from this origin only) applies as to every answer.
 */
export function consoleRoutes(dir = CONSOLE_DIR): Router {
  const router = Router();
  router.use(mountRoutes(consolePageRoutes, dir));
  router.use('/console', express.static(dir, { index: false, redirect: false, fallthrough: true, maxAge: 0 }));
  return router;
}
