/**
 * Contract §3's outbound rule against every path where a user's URL leaves the product: HTTP schedules (created in
 * the scheduler, run by the worker), tool execution and LLM base URLs (agent service, chat and stream), the website
 * crawler (graph service). The rag service makes no call to a URL a user gives (it asks the agent service only). Each target
 * below names a forbidden address (loopback in its many spellings, IPv6 forms, private, carrier-grade NAT,
 * link-local and cloud metadata ranges, a DNS name resolving to loopback, a redirect from an allowed host). Every
 * path must refuse every one (the crawler too: its start URLs and the redirects it meets), and the canaries listening on loopback (IPv4 and IPv6) must never see a connection.
 */
import request from 'supertest';

import { createExecutionRepository, type ExecutionRecord } from '@platform/scheduling';
import { startLocalServer, type LocalServer } from '@platform/testing';

import { startAgentApp, type AgentTestApp } from '../../services/agent/test/helpers';
import { startGraphStack, type GraphStack } from '../../services/graph/test/helpers';
import { startScheduleStack, type ScheduleStack } from '../../services/scheduler/test/schedule-stack';
import { petsDocument } from './worlds';

let canary4: LocalServer;
let canary6: LocalServer;
/** An allow-listed host that redirects every request to the IPv4 canary. */
let redirector: LocalServer;
/** How the outbound guard words a refusal. */
const REFUSED = /refused/;

/** The forbidden targets: name and base URL (built once the canaries listen). */
const TARGETS: [string, () => string][] = [
  ['127.0.0.1', () => `http://127.0.0.1:${canary4.port}`],
  ['127.1 (short form)', () => `http://127.1:${canary4.port}`],
  ['2130706433 (decimal)', () => `http://2130706433:${canary4.port}`],
  ['0x7f000001 (hex)', () => `http://0x7f000001:${canary4.port}`],
  ['0177.0.0.1 (octal)', () => `http://0177.0.0.1:${canary4.port}`],
  ['0.0.0.0', () => `http://0.0.0.0:${canary4.port}`],
  ['localhost (a DNS name resolving to loopback)', () => `http://localhost:${canary4.port}`],
  ['[::1]', () => `http://[::1]:${canary6.port}`],
  ['[::ffff:127.0.0.1] (IPv4-mapped)', () => `http://[::ffff:127.0.0.1]:${canary4.port}`],
  ['[::ffff:7f00:1] (IPv4-mapped, hex)', () => `http://[::ffff:7f00:1]:${canary4.port}`],
  ['10.0.0.1', () => 'http://10.0.0.1'],
  ['172.16.0.1', () => 'http://172.16.0.1'],
  ['192.168.1.1', () => 'http://192.168.1.1'],
  ['100.64.0.1 (carrier-grade NAT)', () => 'http://100.64.0.1'],
  ['169.254.169.254 (cloud metadata)', () => 'http://169.254.169.254'],
  ['[fe80::1] (link-local)', () => 'http://[fe80::1]'],
  ['[fd00::1] (unique local)', () => 'http://[fd00::1]'],
  ['a redirect from an allow-listed host to 127.0.0.1', () => redirector.url],
];

beforeAll(async () => {
  canary4 = await startLocalServer((_req, res) => res.end('canary'));
  canary6 = await startLocalServer((_req, res) => res.end('canary'), '::1');
  redirector = await startLocalServer((req, res) => {
    res.writeHead(302, { location: `http://127.0.0.1:${canary4.port}${req.url}` }).end();
  });
});
afterAll(async () => {
  await canary4.close();
  await canary6.close();
  await redirector.close();
});

/** After every case: nothing reached a canary. */
afterEach(() => {
  expect({ ipv4: canary4.connections, ipv6: canary6.connections }).toEqual({ ipv4: 0, ipv6: 0 });
});

describe('HTTP schedules (scheduler creates, worker calls)', () => {
  let s: ScheduleStack;
  beforeAll(async () => {
    s = await startScheduleStack();
    // The stack's worker may reach its own target only: allow the redirector too, as an operator would name a host.
    s.setTarget((req, res) => res.writeHead(302, { location: `http://127.0.0.1:${canary4.port}${req.url}` }).end());
    await s.startWorker();
  }, 60_000);
  afterAll(async () => {
    await s.close();
  }, 30_000);

  async function runOnce(url: string): Promise<{ created: number; run?: ExecutionRecord }> {
    const made = await request(s.t.app)
      .post('/http-schedules/')
      .set('x-api-key', s.key)
      .send({ name: 'ssrf', url, cron_expression: '0 9 * * *', max_retries: 0 });
    if (made.status !== 201) return { created: made.status };
    const fired = await request(s.t.app).post(`/http-schedules/${made.body.id}/trigger`).set('x-api-key', s.key);
    const executions = createExecutionRepository(s.t.dbs.conn);
    for (const deadline = Date.now() + 15_000; Date.now() < deadline; await new Promise((r) => setTimeout(r, 100))) {
      const e = await executions.get(fired.body.execution_id);
      if (e && ['succeeded', 'failed'].includes(e.status)) return { created: 201, run: e };
    }
    throw new Error(`run of ${url} did not end`);
  }

  it.each(TARGETS)('refuses %s', async (name, url) => {
    // The stack's worker allows its own target only: there the redirect starts.
    const base = name.startsWith('a redirect') ? s.target.url : url();
    const { created, run } = await runOnce(`${base}/hook`);
    // Refused at creation (422) or at the call: the run fails with the guard's reason, no response.
    if (created !== 201) expect(created).toBe(422);
    else
      expect({ status: run!.status, response_status: run!.response_status, error: run!.error_message }).toEqual({
        status: 'failed',
        response_status: null,
        error: expect.stringMatching(REFUSED),
      });
  });
});

describe('agent service: tools and LLM base URLs', () => {
  let t: AgentTestApp;
  let key: string;
  let n = 0;
  beforeAll(async () => {
    t = await startAgentApp({
      allowHosts: `127.0.0.1:${redirector.port}`,
      providerTimeoutMs: 5_000,
      toolTimeoutMs: 5_000,
      toolEnhancer: { baseUrl: 'http://127.0.0.1:9/v1', model: 'none' },
    });
    key = await t.dbs.mintKey({ user_id: 'ssrf', org_id: 'ssrf' });
  });
  afterAll(async () => {
    await t.close();
  });
  const api = () => request(t.app);

  const execute = (tool: string) =>
    api().post(`/v3/tools/openapi/${tool}/execute?path=/pets&method=GET`).set('x-api-key', key);

  it.each(TARGETS)('tool execute refuses %s', async (name, url) => {
    const base = url();
    const made = await api()
      .post('/v3/tools/')
      .set('x-api-key', key)
      .send({ tool_set_name: `ssrf_${n++}`, openapi_schema: petsDocument(base) });
    if (made.status !== 201) {
      expect({ name, status: made.status }).toEqual({ name, status: 422 });
      return;
    }
    const tool = (made.body as { tool_ids: string[] }).tool_ids.find((id) => id.endsWith('listPets'))!;
    const res = await execute(tool);
    expect({ status: res.status, detail: JSON.stringify(res.body) }).toEqual({
      status: 502,
      detail: expect.stringMatching(REFUSED),
    });
    // The base URL given later (endpoint_defaults) is held to the same rule.
    const other = await api()
      .post('/v3/tools/')
      .set('x-api-key', key)
      .send({ tool_set_name: `ssrf_${n++}`, openapi_schema: petsDocument('https://api.example.com') });
    const otherTool = (other.body as { tool_ids: string[] }).tool_ids.find((id) => id.endsWith('listPets'))!;
    const put = await api()
      .put(`/v3/tools/${otherTool}`)
      .set('x-api-key', key)
      .send({ endpoint_defaults: { base_url: base } });
    if (put.status === 200) {
      const again = await execute(otherTool);
      expect({ status: again.status, detail: JSON.stringify(again.body) }).toEqual({
        status: 502,
        detail: expect.stringMatching(REFUSED),
      });
    } else {
      expect({ name, status: put.status }).toEqual({ name, status: 422 });
    }
  });

  it.each(TARGETS)('chat and stream refuse an LLM base_url at %s', async (name, url) => {
    const base = url();
    const cred = await api()
      .post('/v3/providers/credentials')
      .set('x-api-key', key)
      .send({ name: 'ssrf', provider_id: 'openai', credentials: { api_key: 'sk-x', base_url: `${base}/v1` } });
    if (cred.status !== 201) {
      expect({ name, status: cred.status }).toEqual({ name, status: 422 });
      return;
    }
    const agent = await api().post('/v3/agents/').set('x-api-key', key).send({
      name: 'ssrf',
      provider_id: 'openai',
      model: 'm',
      llm_credential_id: cred.body.credential_id,
      system_prompt: 'x',
    });
    const body = { agent_id: String(agent.body.agent_id), session_id: `ssrf-${n++}`, message: 'hi' };
    const chat = await api().post('/v3/inference/chat/').set('x-api-key', key).send(body);
    // Provider calls follow no redirect at all: a redirect fails as such, before the guard has anything to judge.
    const why = name.startsWith('a redirect') ? /^LLM provider error: .*redirect/i : /^LLM provider error: .*refused/;
    expect({ status: chat.status, detail: chat.body.detail }).toEqual({
      status: 502,
      detail: expect.stringMatching(why),
    });
    const stream = await api().post('/v3/inference/stream/').set('x-api-key', key).send(body);
    expect({ status: stream.status, detail: stream.body.detail }).toEqual({
      status: 502,
      detail: expect.stringMatching(why),
    });
  });
});

describe('graph service: the website crawler', () => {
  let g: GraphStack;
  let rag: string;
  beforeAll(async () => {
    g = await startGraphStack({ allowHosts: `127.0.0.1:${redirector.port}` });
    rag = await g.createRag(g.alice);
  });
  afterAll(async () => {
    await g.close();
  });

  it.each(TARGETS)('trains nothing from %s', async (_name, url) => {
    const res = await request(g.app)
      .post(`/v4/knowledge_graph/website/?rag_id=${rag}`)
      .set('x-api-key', g.alice)
      .send({ urls: [`${url()}/`], max_crawl_pages: 5, max_crawl_depth: 1 });
    // Refused up front (422) or crawled as a site with no page that could be fetched.
    if (res.status === 200) expect(res.body.pages_trained).toBe(0);
    else expect(res.status).toBe(422);
  });
});
