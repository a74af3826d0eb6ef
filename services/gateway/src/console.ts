import { join } from 'node:path';
import express, { Router } from 'express';

import { Joi } from '@platform/config';
import { mountRoutes, route, type Route } from '@platform/http';

/** Where the console's files are: `console/` beside `src/` and `dist/` (the package's own folder in an image too). */
export const CONSOLE_DIR = join(__dirname, '..', 'console');

/** What the console's routes serve: its folder, and the settings its page reads. */
export interface ConsoleDeps {
  dir: string;
  /** `TRACE_UI_URL`: the trace UI's URL with `{trace_id}` in it; empty: trace ids are shown without a link. */
  traceUiUrl: string;
}

const html = { 'text/html': { schema: { type: 'string' } } };

/** What the page needs to know of the gateway's configuration (nothing secret: the page is public). */
const consoleSettings = Joi.object({
  trace_ui_url: Joi.string()
    .allow(null)
    .required()
    .description(
      "Where a run's trace opens: an http(s) URL in which the page puts the trace id in place of `{trace_id}`; null: " +
        'trace ids are shown without a link',
    ),
});

/**
 * GET /console (and /console/: routing is not strict): the page, never cached; GET /console/settings: what the page
 * reads of the gateway's configuration.
 */
export const consolePageRoutes: Route<ConsoleDeps>[] = [
  route({
    method: 'get',
    path: '/console',
    operationId: 'console',
    summary: 'The operations console (a browser page over the public API; log in with an API key)',
    standardResponses: false,
    responses: { '200': { description: 'The page', content: html } },
    openapi: { tags: ['console'] },
    handle: ({ dir }: ConsoleDeps, { res }) =>
      new Promise<void>((resolve, reject) => {
        res.set('cache-control', 'no-store');
        res.sendFile(join(dir, 'index.html'), (err) => (err ? reject(err) : resolve()));
      }),
  }),
  route({
    method: 'get',
    path: '/console/settings',
    operationId: 'consoleSettings',
    summary: "The console's settings: the trace UI its runs' trace ids link to (TRACE_UI_URL)",
    standardResponses: false,
    responses: { '200': { description: 'The settings', body: consoleSettings } },
    openapi: { tags: ['console'] },
    handle: ({ traceUiUrl }: ConsoleDeps, { res }) => {
      res.set('cache-control', 'no-store');
      return { trace_ui_url: traceUiUrl === '' ? null : traceUiUrl };
    },
  }),
];

/**
 * The operations console (`console/`: one HTML page, a script and a style sheet, no build step, nothing from
 * outside): `GET /console` and `/console/` answer the page, `/console/settings` its settings, `/console/<file>` its
 * files. The page calls the public API through this same gateway with the API key the user gives it, kept in the
 * tab's session storage only. Helmet's content security policy (scripts and styles from this origin only) applies as
 * to every answer.
 */
export function consoleRoutes(deps: Partial<ConsoleDeps> = {}): Router {
  const full: ConsoleDeps = { dir: deps.dir ?? CONSOLE_DIR, traceUiUrl: deps.traceUiUrl ?? '' };
  const router = Router();
  router.use(mountRoutes(consolePageRoutes, full));
  router.use('/console', express.static(full.dir, { index: false, redirect: false, fallthrough: true, maxAge: 0 }));
  return router;
}
