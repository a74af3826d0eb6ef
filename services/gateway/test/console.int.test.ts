import { chromium, type Browser, type Page } from 'playwright-core';
import request from 'supertest';

import { loadConfig } from '@platform/config';
import { listen, type RunningServer } from '@platform/http';
import { captureLogger, startLocalServer, type LocalServer } from '@platform/testing';

import { signSha256 } from '../../scheduler/src/webhooks/signature';
import { startTriggerStack, type TriggerStack } from '../../scheduler/test/trigger-stack';
import { createApp } from '../src/app';
import { configSchema } from '../src/config';

// The operations console in a real browser (Debian's Chromium through playwright-core), on the whole path: the
// gateway serving the page and routing its API calls to the scheduler (listening on a port), the agent service and
// a worker as processes, FerretDB and Redis; only the LLM provider is a local stand-in. An operator logs in with an
// API key, finds the failed runs of a webhook, replays them and watches the replays succeed. Then the runs' trace ids,
// linked to the trace UI that TRACE_UI_URL names, from a stand-in scheduler answering runs with trace ids of its own.

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
  // Runs made without tracing (this process traces nothing): no trace id, nothing to link.
  expect(await rows('failed').locator('td:nth-child(7)').allTextContents()).toEqual(['—', '—', '—']);
  expect(await page.locator('#runs a.trace').count()).toBe(0);

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

// What the stand-in scheduler of the trace ids tests answers: its webhook and the runs' trace ids.
const TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';
const HOSTILE = '"><img src=x onerror="window.__injected=1"><b>x</b>';
const TRACED_HOOK = {
  id: 'hook-1',
  agent_id: '7',
  description: 'Traced hook',
  is_active: true,
  last_triggered_at: null,
  last_trigger_success: null,
  trigger_count: 3,
};
const run = (id: string, trace_id: string | null) => ({
  id,
  kind: 'webhook',
  status: 'succeeded',
  attempt: 1,
  max_attempts: 3,
  triggered_at: new Date().toISOString(),
  started_at: null,
  finished_at: null,
  scheduled_for: null,
  duration_ms: 12,
  response_status: 200,
  response_output: 'ok',
  error_message: null,
  replay_of: null,
  payload: { n: id },
  trace_id,
});

describe('trace ids', () => {
  let upstream: LocalServer;
  const gateways: RunningServer[] = [];
  let tracePage: Page;

  beforeAll(async () => {
    // A stand-in scheduler: one webhook whose runs carry a trace id, none, and one no real trace id looks like.
    upstream = await startLocalServer((req, res) => {
      const path = req.url.split('?')[0]!;
      const body =
        path === '/agent-webhooks/'
          ? { webhooks: [TRACED_HOOK], total: 1 }
          : path === '/agent-webhooks/hook-1'
            ? TRACED_HOOK
            : path === '/agent-webhooks/hook-1/executions'
              ? {
                  executions: [run('run-traced', TRACE), run('run-untraced', null), run('run-hostile', HOSTILE)],
                  total: 3,
                }
              : undefined;
      res.writeHead(body ? 200 : 404, { 'content-type': 'application/json' }).end(JSON.stringify(body ?? {}));
    });
    tracePage = await browser.newPage(); // a context of its own: the other tests' page keeps its session and requests
  });

  afterAll(async () => {
    await tracePage?.close();
    for (const g of gateways) await g.close(1_000);
    await upstream?.close();
  });

  /** A gateway in front of the stand-in, with `traceUiUrl`; answers its base URL. */
  async function gatewayWith(traceUiUrl?: string): Promise<string> {
    const app = createApp({
      logger: captureLogger('gateway').logger,
      upstreams: { scheduler: new URL(upstream.url) },
      timeoutMs: 10_000,
      traceUiUrl,
    });
    const g = await listen(app, 0, undefined, '127.0.0.1');
    gateways.push(g);
    return `http://127.0.0.1:${g.port}`;
  }

  /** Logs in at `at` and opens the webhook's runs; answers the runs table's rows by run id. */
  async function openRuns(at: string) {
    await tracePage.goto(`${at}/console/`);
    await tracePage.evaluate('sessionStorage.clear()');
    await tracePage.goto(`${at}/console/#/webhooks`);
    await tracePage.fill('#api-key', 'any-key');
    await tracePage.click('button[type=submit]');
    await tracePage.locator('#resources tr[data-id="hook-1"]').getByRole('button', { name: 'Runs' }).click();
    await tracePage.locator('#runs[data-query]').waitFor();
    return (id: string) => tracePage.locator(`#runs tr[data-id="${id}"] td:nth-child(7)`);
  }

  validatesTraceUiSettings();

  it('links each trace id to the trace UI, in the list and in the run, and writes every id as text', async () => {
    const at = await gatewayWith('http://traces.example.test:16686/trace/{trace_id}?from=console');
    const traceCell = await openRuns(at);

    const link = traceCell('run-traced').locator('a.trace');
    await expect(link.textContent()).resolves.toBe(TRACE);
    await expect(link.getAttribute('href')).resolves.toBe(
      `http://traces.example.test:16686/trace/${TRACE}?from=console`,
    );
    await expect(link.getAttribute('target')).resolves.toBe('_blank');
    await expect(link.getAttribute('rel')).resolves.toBe('noopener noreferrer');
    await expect(traceCell('run-untraced').textContent()).resolves.toBe('—');

    // Whatever an id holds is text, never markup, and goes into the link URL-encoded.
    const hostile = traceCell('run-hostile').locator('a.trace');
    await expect(hostile.textContent()).resolves.toBe(HOSTILE);
    await expect(hostile.getAttribute('href')).resolves.toBe(
      `http://traces.example.test:16686/trace/${encodeURIComponent(HOSTILE)}?from=console`,
    );
    expect(await tracePage.locator('#runs img, #runs b').count()).toBe(0);
    expect(await tracePage.evaluate('window.__injected')).toBeUndefined();

    // The run's detail shows its trace too.
    await tracePage.locator('#runs tr[data-id="run-traced"] td:first-child').click();
    const detailLink = tracePage.locator('#run-detail a.trace');
    await expect(detailLink.getAttribute('href')).resolves.toBe(
      `http://traces.example.test:16686/trace/${TRACE}?from=console`,
    );
    await tracePage.locator('#runs tr[data-id="run-untraced"] td:first-child').click();
    await tracePage.locator('#run-detail h3', { hasText: 'run-untraced' }).waitFor();
    expect(await tracePage.locator('#run-detail a.trace').count()).toBe(0);
  });

  it('shows trace ids without a link when TRACE_UI_URL is empty, or names anything but an http(s) URL', async () => {
    // The second gateway is given a value its configuration would refuse: the page makes no link of it either.
    for (const traceUiUrl of [undefined, 'javascript:alert(1)//{trace_id}']) {
      const traceCell = await openRuns(await gatewayWith(traceUiUrl));
      await expect(traceCell('run-traced').textContent()).resolves.toBe(TRACE);
      await expect(traceCell('run-hostile').textContent()).resolves.toBe(HOSTILE);
      expect(await tracePage.locator('#runs a').count()).toBe(0);
      expect(await tracePage.locator('#runs span.trace').count()).toBe(2);
    }
  });
});

function validatesTraceUiSettings(): void {
  it('validates TRACE_UI_URL: empty (the default) or an http(s) URL containing {trace_id}', () => {
    const value = (v?: string) => loadConfig(configSchema, v === undefined ? {} : { TRACE_UI_URL: v }).TRACE_UI_URL;
    expect(value()).toBe('');
    expect(value('')).toBe('');
    expect(value('http://localhost:16686/trace/{trace_id}')).toBe('http://localhost:16686/trace/{trace_id}');
    expect(value('https://traces.example.com/t?id={trace_id}')).toBe('https://traces.example.com/t?id={trace_id}');
    for (const bad of [
      'http://localhost:16686/trace/',
      'javascript:alert(1)//{trace_id}',
      'ftp://traces.example.com/{trace_id}',
      '/trace/{trace_id}',
      'not a url {trace_id}',
    ])
      expect(() => value(bad)).toThrow('TRACE_UI_URL: must be an http(s) URL containing {trace_id}');
  });

  it('answers the settings the page reads: the trace UI, or null', async () => {
    const app = (traceUiUrl?: string) =>
      createApp({ logger: captureLogger('gateway').logger, upstreams: {}, timeoutMs: 10_000, traceUiUrl });
    const unset = await request(app()).get('/console/settings');
    expect(unset.status).toBe(200);
    expect(unset.body).toEqual({ trace_ui_url: null });
    const set = await request(app('http://localhost:16686/trace/{trace_id}')).get('/console/settings');
    expect(set.body).toEqual({ trace_ui_url: 'http://localhost:16686/trace/{trace_id}' });
    expect(set.headers['cache-control']).toBe('no-store');
  });
}
