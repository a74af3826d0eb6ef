/**
 * The SSRF suite catches a broken promise: with the address guard out of the way for the canary (its host:port on
 * the allow-list, as a guard that let loopback through would), the suite's own tool call reaches the canary and
 * succeeds, so both of its assertions (502 with the guard's reason, zero connections) would fail.
 */
import request from 'supertest';

import { startLocalServer, type LocalServer } from '@platform/testing';

import { startAgentApp, type AgentTestApp } from '../../services/agent/test/helpers';
import { petsDocument } from './worlds';

let canary: LocalServer;
let t: AgentTestApp;
beforeAll(async () => {
  canary = await startLocalServer((_req, res) => res.end('{"pets":[]}'));
  t = await startAgentApp({
    allowHosts: `127.0.0.1:${canary.port}`,
    toolEnhancer: { baseUrl: 'http://127.0.0.1:9/v1', model: 'none' },
  });
});
afterAll(async () => {
  await t.close();
  await canary.close();
});

it('lets the call through to the canary, which the suite would report', async () => {
  const key = await t.dbs.mintKey({ user_id: 'ssrf', org_id: 'ssrf' });
  const made = await request(t.app)
    .post('/v3/tools/')
    .set('x-api-key', key)
    .send({ tool_set_name: 'open', openapi_schema: petsDocument(`http://127.0.0.1:${canary.port}`) });
  const tool = (made.body as { tool_ids: string[] }).tool_ids.find((id) => id.endsWith('listPets'))!;
  const res = await request(t.app)
    .post(`/v3/tools/openapi/${tool}/execute?path=/pets&method=GET`)
    .set('x-api-key', key);
  expect(res.status).toBe(200);
  expect(canary.connections).toBeGreaterThan(0);
});
