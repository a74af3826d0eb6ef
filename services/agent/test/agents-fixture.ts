/**
 * What the agents CRUD suites share: the real agent app with keys of three callers, and a create call.
 *
 * A suite calls `useAgentsApp()` once at its top: its beforeAll starts the app and fills the bindings exported below
 * (read them inside tests and hooks), its afterAll stops it. Each suite gets an app (and database) of its own.
 */
import request from 'supertest';

import { agentBody, startAgentApp, type AgentTestApp } from './helpers';

export let t: AgentTestApp;
export let alice: string; // user alice in org acme
export let bob: string; // another user, same org
export let aliceElsewhere: string; // the same user id in another org

/** Starts the app before the suite's tests and stops it after them. */
export function useAgentsApp(): void {
  beforeAll(async () => {
    t = await startAgentApp();
    alice = await t.dbs.mintKey({ user_id: 'alice', org_id: 'acme' });
    bob = await t.dbs.mintKey({ user_id: 'bob', org_id: 'acme' });
    aliceElsewhere = await t.dbs.mintKey({ user_id: 'alice', org_id: 'globex' });
  });
  afterAll(() => t.close());
}

/** POST /v3/agents/ with `key`; a valid general agent by default. */
export const create = (key: string, body: object = agentBody()) =>
  request(t.app).post('/v3/agents/').set('x-api-key', key).send(body);
