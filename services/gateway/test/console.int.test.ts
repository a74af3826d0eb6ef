import { chromium, type Browser, type Page } from 'playwright-core';
import request from 'supertest';

import { listen, type RunningServer } from '@platform/http';
import { captureLogger } from '@platform/testing';

import { signSha256 } from '../../scheduler/src/webhooks/signature';
import { startTriggerStack, type TriggerStack } from '../../scheduler/test/trigger-stack';
import { createApp } from '../src/app';

// The operations console in a real browser (Debian's Chromium through playwright-core), on the whole path: the
// gateway serving the page and routing its API calls to the scheduler (listening on a port), the agent service and
// a worker as processes, FerretDB and Redis; only the LLM provider is a local stand-in. An operator logs in with an
// API key, finds the failed runs of a webhook, replays them and watches the replays succeed.

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

let s: TriggerStack;
let scheduler: RunningServer;
let gateway: RunningServer;
let base: string;
let browser: Browser;
let page: Page;
const requested: string[] = [];
let failedIds: string[];
let agentId: string;
let webhookId: string;

beforeAll(async () => {
  s = await startTriggerStack();
  scheduler = await listen(s.app, 0, undefined, '127.0.0.1');
  gateway = await listen(
    createApp({
      logger: captureLogger('gateway').logger,
      upstreams: { scheduler: new URL(`http://127.0.0.1:${scheduler.port}`) },
      timeoutMs: 10_000,
    }),
    0,
    undefined,
    '127.0.0.1',
  );
  base = `http://127.0.0.1:${gateway.port}`;
  // An agent stored without its provider credential: its runs fail at once (a 4xx of the agent service is final).
  const agent = await request(s.agentService.url)
    .post('/v3/agents/')
    .set('x-api-key', s.key)
    .send({ name: 'Order bot', provider_id: 'openai', model: 'gpt-4o-mini' });
  expect(agent.status).toBe(201);
  agentId = String(agent.body.agent_id);
  const hook = await request(s.app).post('/agent-webhooks/').set('x-api-key', s.key).send({ agent_id: agentId });
  expect(hook.status).toBe(201);
  webhookId = hook.body.id as string;
  failedIds = [];
  for (const n of [1, 2, 3]) {
    const body = JSON.stringify({ order: n });
    const res = await request(s.app)
      .post(`/webhook-trigger/${webhookId}`)
      .set('content-type', 'application/json')
      .set('x-webhook-signature', signSha256(hook.body.secret_key as string, body))
      .send(body);
    expect(res.status).toBe(202);
    failedIds.push(res.body.execution_id as string);
    expect((await s.waitEnded(res.body.execution_id as string)).status).toBe('failed');
  }
  // The operator fixes the agent (the credential the stack's own agent uses); the failed runs can now succeed.
  const working = await request(s.agentService.url).get(`/v3/agents/${s.agentId}`).set('x-api-key', s.key);
  const fixed = await request(s.agentService.url).put(`/v3/agents/${agentId}`).set('x-api-key', s.key).send({
    name: 'Order bot',
    provider_id: 'openai',
    model: 'gpt-4o-mini',
    llm_credential_id: working.body.llm_credential_id,
  });
  expect(fixed.status).toBe(200);
  browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: ['--no-sandbox'] });
  page = await browser.newPage();
  page.on('request', (r) => requested.push(r.url()));
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await gateway?.close(1_000);
  await scheduler?.close(1_000);
  await s?.close();
}, 30_000);

const rows = (status?: string) => page.locator(status ? `#runs tbody tr[data-status="${status}"]` : '#runs tbody tr');

it('serves the page at /console and /console/ with its files, under a policy allowing this origin only', async () => {
  for (const path of ['/console', '/console/']) {
    const res = await request(base).get(path);
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/html/);
    expect(res.headers['content-security-policy']).toContain("script-src 'self'");
    expect(res.text).toContain('<script src="/console/console.js" defer></script>');
  }
  expect((await request(base).get('/console/console.js')).headers['content-type']).toMatch(/javascript/);
  expect((await request(base).get('/console/console.css')).headers['content-type']).toMatch(/^text\/css/);
  expect((await request(base).get('/console/nothing.js')).status).toBe(404);
});

it('refuses a wrong API key and keeps nothing', async () => {
  await page.goto(`${base}/console/`);
  await page.fill('#api-key', 'not-a-key');
  await page.click('button[type=submit]');
  await page.getByText('This API key is not valid.').waitFor();
  expect(await page.evaluate('sessionStorage.length')).toBe(0);
});

it('logs in, filters the failed runs, replays them and shows the replays succeed', async () => {
  await page.fill('#api-key', s.key);
  await page.click('button[type=submit]');
  const webhookRow = page.locator(`#resources tr[data-id="${webhookId}"]`);
  await webhookRow.waitFor();
  await expect(webhookRow.textContent()).resolves.toContain('active');
  await webhookRow.getByRole('button', { name: 'Runs' }).click();

  await page.locator('#filters input[value="failed"]').check();
  await page.click('#filters button[type=submit]');
  // The filtered list replaces the one shown (whose rows were failed too): wait for it to be in.
  await page.locator('#runs[data-query*="status=failed"]').waitFor();
  expect(await rows('failed').count()).toBe(3);
  const shown = await Promise.all([0, 1, 2].map((i) => rows().nth(i).getAttribute('data-id')));
  expect(shown.sort()).toEqual([...failedIds].sort());

  // A run's input, output and error.
  await rows('failed').first().click();
  await expect(page.locator('#run-detail .input').textContent()).resolves.toContain('"order"');
  await expect(page.locator('#run-detail .run-error').textContent()).resolves.toMatch(/\S/);

  await page.click('#replay-matching');
  await page.getByRole('button', { name: 'Replay 3 runs' }).click();
  await page.getByText('Replayed 3 run(s): 3 new, 0 replayed before.').waitFor();
  // The list shows every status now; the replays are queued, then the page looks again until they have ended.
  await rows('succeeded').nth(2).waitFor({ timeout: 30_000 });
  expect(await rows('succeeded').count()).toBe(3);
  const replays = await rows('succeeded').locator('td:nth-child(6)').allTextContents(); // "Replay of"
  expect([...replays].sort()).toEqual([...failedIds].sort());
  await rows('succeeded').first().click();
  await expect(page.locator('#run-detail .output').textContent()).resolves.toContain('order');

  // The same, as the API tells it.
  const list = await request(s.app)
    .get(`/agent-webhooks/${webhookId}/executions?status=succeeded`)
    .set('x-api-key', s.key);
  expect(list.body.total).toBe(3);
  expect(list.body.executions.map((e: { replay_of: string }) => e.replay_of).sort()).toEqual([...failedIds].sort());
}, 90_000);

it('pauses and resumes a webhook from the list', async () => {
  await page.getByRole('button', { name: 'Webhooks' }).click();
  const row = page.locator(`#resources tr[data-id="${webhookId}"]`);
  await row.getByRole('button', { name: 'Pause' }).click();
  await row.getByRole('button', { name: 'Resume' }).waitFor();
  await expect(row.textContent()).resolves.toContain('paused');
  const paused = await request(s.app).get(`/agent-webhooks/${webhookId}`).set('x-api-key', s.key);
  expect(paused.body.is_active).toBe(false);
  await row.getByRole('button', { name: 'Resume' }).click();
  await row.getByRole('button', { name: 'Pause' }).waitFor();
});

it('keeps the key in the session only, loads nothing from elsewhere, and forgets the key on log out', async () => {
  expect(await page.evaluate('localStorage.length')).toBe(0);
  expect(await page.context().cookies()).toEqual([]);
  expect(requested.length).toBeGreaterThan(5);
  expect(requested.filter((u) => !u.startsWith(`${base}/`))).toEqual([]);
  await page.click('#logout');
  await page.locator('#api-key').waitFor();
  expect(await page.evaluate('sessionStorage.length')).toBe(0);
});
