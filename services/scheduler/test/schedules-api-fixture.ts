/**
 * What the schedules API suites share: the real scheduler app (helpers.ts) with keys of Alice and Bob (same org), one
 * of Alice's agents, and calls of the API as a given key.
 *
 * A suite calls `useSchedulesApp()` once at its top: its beforeAll starts the app and fills the bindings exported
 * below (read them inside tests and hooks), its afterAll stops it. Each suite gets an app (and database) of its own.
 */
import request from 'supertest';

import { startSchedulerApp, type SchedulerTestApp } from './helpers';

export let t: SchedulerTestApp;
export let key: string;
export let otherKey: string;
export let agentId: string;

/** Starts the app before the suite's tests and stops it after them. */
export function useSchedulesApp(): void {
  beforeAll(async () => {
    t = await startSchedulerApp();
    key = await t.dbs.mintKey({ user_id: 'alice', org_id: 'acme' });
    otherKey = await t.dbs.mintKey({ user_id: 'bob', org_id: 'acme' });
    agentId = await t.createAgent(key);
  }, 60_000);
  afterAll(() => t.close(), 30_000);
}

/** The API as the owner of key `k`. */
export const as = (k: string) => ({
  get: (p: string) => request(t.app).get(p).set('x-api-key', k),
  post: (p: string, body?: unknown) =>
    request(t.app)
      .post(p)
      .set('x-api-key', k)
      .send(body as object),
  patch: (p: string, body?: unknown) =>
    request(t.app)
      .patch(p)
      .set('x-api-key', k)
      .send(body as object),
  delete: (p: string) => request(t.app).delete(p).set('x-api-key', k),
});
/** The API as Alice (`key`). */
export const api = () => as(key);
