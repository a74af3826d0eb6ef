import { join } from 'node:path';
import express, { Router } from 'express';

/** Where the console's files are: `console/` beside `src/` and `dist/` (the package's own folder in an image too). */
export const CONSOLE_DIR = join(__dirname, '..', 'console');

/**
 * The operations console (`console/`: one HTML page, a script and a style sheet, no build step, nothing from
 * outside): `GET /console` and `/console/` answer the page, `/console/<file>` its files. The page calls the public
 * API through this same gateway with the API key the user gives it, kept in the tab's session storage only. Helmet's
 * content security policy (scripts and styles from this origin only) applies as to every answer.
 */
export function consoleRoutes(dir = CONSOLE_DIR): Router {
  const router = Router();
  const page = (_req: express.Request, res: express.Response) => {
    res.set('cache-control', 'no-store');
    res.sendFile(join(dir, 'index.html'));
  };
  router.get('/console', page); // and /console/ (routing is not strict)
  router.use('/console', express.static(dir, { index: false, redirect: false, fallthrough: true, maxAge: 0 }));
  return router;
}
