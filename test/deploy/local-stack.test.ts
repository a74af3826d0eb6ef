/**
 * The compose stack without Docker: every process docker-compose.yml lists is started with its image's entry point
 * (the Dockerfile target's CMD, run in services/<SERVICE>/, the folder the image deploys) and its compose
 * environment, adapted to this machine: the local FerretDB and Redis instead of the mongo and redis containers, a
 * free port each instead of the contract ports, compose host names replaced by 127.0.0.1 and those ports, and names
 * (databases, queue prefix, upload folder) private to this run. They start in the compose file's depends_on order,
 * each once its compose healthcheck path answers. One request then goes through the gateway to each service (the
 * worker's through a webhook run), with an API key minted by the README's command; at the end every process is
 * stopped with SIGTERM and must exit by itself, cleanly.
 */
import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { connectMongo } from '@platform/db';
import {
  freePort,
  startLocalServer,
  startServiceProcess,
  testInfra,
  uniqueName,
  type LocalServer,
  type ServiceProcess,
} from '@platform/testing';

import { textPdf } from '../../services/ocr/test/support/text-fixtures';
import { signSha256 } from '../../services/scheduler/src/webhooks/signature';
import {
  composeBuild,
  composeHealthPath,
  composeLocalEnv,
  composeServices,
  CONTRACT_PORTS,
  dependsOn,
  dropQueueKeys,
  ROOT,
  toMap,
  type ComposeService,
} from './deploy-helpers';

const compose = composeServices();
const apps = Object.entries(compose).filter(([, s]) => s.build !== undefined);
const INFRA = Object.keys(compose).filter((n) => compose[n]!.build === undefined);
const dockerfile = readFileSync(join(ROOT, 'Dockerfile'), 'utf8').replace(/\\\n/g, ' ');

/** The CMD of a Dockerfile stage (exec form), e.g. ["node", "dist/main.js"]. */
function stageCmd(target: string): string[] {
  const lines = dockerfile.split('\n').map((l) => l.trim());
  const start = lines.findIndex((l) => new RegExp(`^FROM \\S+ AS ${target}$`, 'i').test(l));
  if (start < 0) throw new Error(`Dockerfile has no stage ${target}`);
  const end = lines.findIndex((l, i) => i > start && /^FROM /i.test(l));
  const cmd = lines.slice(start, end < 0 ? undefined : end).find((l) => l.startsWith('CMD '));
  if (!cmd) throw new Error(`Dockerfile stage ${target} has no CMD`);
  return JSON.parse(cmd.slice(4)) as string[];
}

/** The entry point the image of a compose service runs: `node <script>` in the deployed service folder. */
function entryPoint(s: ComposeService): string {
  const b = composeBuild(s);
  const stages = [...dockerfile.matchAll(/^FROM \S+ AS (\S+)$/gim)].map((m) => m[1]!);
  const [bin, script, ...rest] = stageCmd(b.target ?? stages.at(-1)!);
  if (bin !== 'node' || !script || rest.length > 0) throw new Error(`unexpected CMD ${String(bin)} ${String(script)}`);
  return join(ROOT, 'services', toMap(b.args).SERVICE!, script);
}

/** The path a compose healthcheck asks, e.g. /readyz. */
/** App services in start order: a service after everything it depends on (levels start together). */
function startLevels(): string[][] {
  const levels: string[][] = [];
  const done = new Set(INFRA);
  let left = apps.map(([n]) => n);
  while (left.length > 0) {
    const ready = left.filter((n) => Object.keys(dependsOn(compose[n]!)).every((d) => done.has(d)));
    if (ready.length === 0) throw new Error(`depends_on cycle or unknown service among ${left.join(', ')}`);
    levels.push(ready);
    ready.forEach((n) => done.add(n));
    left = left.filter((n) => !ready.includes(n));
  }
  return levels;
}

const runId = uniqueName('stack');
const ports: Record<string, number> = {};
const procs: Record<string, ServiceProcess> = {};
const exits: Record<string, { code: number | null; signal: NodeJS.Signals | null }> = {};
let llm: LocalServer;
let uploadDir: string;
let gateway: string;
let key: string;

/** The compose environment of a service, pointed at this machine (see the file's comment). */
function localEnv(name: string): Record<string, string> {
  const local = composeLocalEnv(name, {
    urls: Object.fromEntries(Object.entries(ports).map(([n, p]) => [n, `http://127.0.0.1:${p}`])),
    port: ports[name]!,
    runId,
    authDb: `${runId}_auth`,
    uploadDir,
    publicBaseUrl: `http://127.0.0.1:${ports.gateway}`,
  });
  // The provider stand-in is a local server: allowed as an operator allows a self-hosted model (the agent's chat,
  // the rag service's embeddings).
  if (name === 'agent' || name === 'rag') local.OUTBOUND_ALLOW_HOSTS = `127.0.0.1:${llm.port}`;
  local.LOG_LEVEL = 'info';
  return local;
}

beforeAll(async () => {
  uploadDir = mkdtempSync(join(tmpdir(), 'stack-uploads-'));
  llm = await startLocalServer((req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    if (req.url.endsWith('/embeddings')) {
      // OpenAI-protocol embeddings: a bag of words hashed into 16 dimensions (same words, same direction).
      const inputs = (req.json as { input: string[] }).input;
      res.end(
        JSON.stringify({ object: 'list', data: inputs.map((t, index) => ({ index, embedding: bagOfWords(t) })) }),
      );
      return;
    }
    res.end(
      JSON.stringify({
        id: 'c1',
        object: 'chat.completion',
        choices: [{ index: 0, message: { role: 'assistant', content: 'stack answer' }, finish_reason: 'stop' }],
      }),
    );
  });
  for (const [name] of apps) ports[name] = await freePort();
  for (const level of startLevels()) {
    await Promise.all(
      level.map(async (name) => {
        const s = compose[name]!;
        procs[name] = await startServiceProcess({
          script: entryPoint(s),
          port: ports[name],
          env: localEnv(name),
          readyPath: composeHealthPath(s),
          timeoutMs: 60_000,
        });
        procs[name].child.once('exit', (code, signal) => (exits[name] = { code, signal }));
      }),
    );
  }
  gateway = procs.gateway!.url;
  // The README's command (pnpm apikey create runs this CLI), against this run's auth database.
  const out = execFileSync(
    process.execPath,
    [
      join(ROOT, 'libs/auth/dist/cli.js'),
      'create',
      '--user',
      'stack-user',
      '--org',
      'stack-org',
      '--name',
      'local-stack',
    ],
    {
      env: { ...process.env, MONGODB_URI: testInfra.mongoUri, AUTH_DB: `${runId}_auth` },
      encoding: 'utf8',
    },
  );
  key = out.trim().split('\n').at(-1)!.trim();
}, 240_000);

afterAll(async () => {
  await Promise.all(Object.values(procs).map((p) => p.stop(30_000)));
  await llm?.close();
  rmSync(uploadDir, { recursive: true, force: true });
  const conn = await connectMongo({ uri: testInfra.mongoUri, dbName: `${runId}_auth` });
  const { databases } = await conn.db!.admin().listDatabases();
  for (const d of databases.filter((x) => x.name.startsWith(`${runId}_`))) await conn.useDb(d.name).dropDatabase();
  await conn.close();
  await dropQueueKeys(runId);
}, 120_000);

function bagOfWords(text: string): number[] {
  const v = Array.from({ length: 16 }, () => 0);
  for (const w of text.toLowerCase().match(/[a-z0-9]+/g) ?? []) {
    let h = 0;
    for (const c of w) h = (h * 31 + c.charCodeAt(0)) % 16;
    v[h]! += 1;
  }
  v[0]! += 0.01; // never the zero vector
  return v;
}

/** One request through the gateway; the gateway's request id comes back on every answer. */
async function call(method: string, path: string, body?: unknown, headers: Record<string, string> = {}) {
  const requestId = `stack-${randomUUID()}`;
  const res = await fetch(`${gateway}${path}`, {
    method,
    headers: {
      'x-api-key': key,
      'x-request-id': requestId,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      ...headers,
    },
    body: body === undefined ? undefined : JSON.stringify(body),
    signal: AbortSignal.timeout(60_000),
  });
  const text = await res.text();
  expect(res.headers.get('x-request-id')).toBe(requestId);
  return { status: res.status, body: (text ? JSON.parse(text) : null) as Record<string, unknown>, requestId };
}

describe("the compose stack, started from the images' entry points without Docker", () => {
  it('lists every contract process, each started and healthy behind its compose healthcheck', async () => {
    expect(apps.map(([n]) => n).sort()).toEqual(Object.keys(CONTRACT_PORTS).sort());
    expect(INFRA.sort()).toEqual(['mongo', 'redis']);
    for (const [name, s] of apps) {
      expect(existsSync(entryPoint(s))).toBe(true);
      const res = await fetch(`${procs[name]!.url}${composeHealthPath(s)}`);
      expect({ name, status: res.status }).toEqual({ name, status: 200 });
    }
    // The gateway started last: it depends on every service it routes to.
    expect(startLevels().at(-1)).toEqual(['gateway']);
  });

  let credentialId: string;
  let agentId: string;

  it('agent: a credential, an agent and a chat answered by the provider stand-in', async () => {
    const cred = await call('POST', '/v3/providers/credentials', {
      name: 'local',
      provider_id: 'openai',
      credentials: { api_key: 'sk-local-test', base_url: `${llm.url}/v1` },
    });
    expect(cred.status).toBe(201);
    credentialId = cred.body.credential_id as string;
    const agent = await call('POST', '/v3/agents/', {
      name: 'stack bot',
      system_prompt: 'Answer briefly.',
      provider_id: 'openai',
      model: 'local-model',
      llm_credential_id: credentialId,
    });
    expect(agent.status).toBe(201);
    agentId = String(agent.body.id);
    const chat = await call('POST', '/v3/inference/chat/', {
      agent_id: agentId,
      session_id: 'stack-1',
      message: 'hello',
    });
    expect({ status: chat.status, body: chat.body }).toEqual({
      status: 200,
      body: { response: 'stack answer', session_id: 'stack-1', agent_id: agentId },
    });
    // The agent service logged the gateway's request id on its own lines.
    expect(procs.agent!.output()).toContain(chat.requestId);
  });

  it('scheduler and worker: a webhook whose trigger the worker runs against the agent service', async () => {
    const hook = await call('POST', '/agent-webhooks/', { agent_id: agentId, description: 'stack' });
    expect(hook.status).toBe(201);
    const body = JSON.stringify({ event: 'stack' });
    const trigger = await fetch(`${gateway}/webhook-trigger/${String(hook.body.id)}`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'x-webhook-signature': signSha256(hook.body.secret_key as string, body),
      },
      body,
    });
    expect(trigger.status).toBe(202);
    const executionId = ((await trigger.json()) as { execution_id: string }).execution_id;
    let status = 'queued';
    for (let i = 0; i < 600 && !['succeeded', 'failed'].includes(status); i++) {
      await new Promise((r) => setTimeout(r, 100));
      const list = await call('GET', `/agent-webhooks/${String(hook.body.id)}/executions`);
      status =
        (list.body.executions as { id: string; status: string }[]).find((e) => e.id === executionId)?.status ??
        'missing';
    }
    expect(status).toBe('succeeded');
    expect(llm.requests.length).toBeGreaterThanOrEqual(2);
  }, 90_000);

  let ragId: string;

  it('rag: a RAG configuration whose credentials the rag service checks with the agent service', async () => {
    const rag = await call('POST', '/v3/rag/', {
      llm_credential_id: credentialId,
      embedding_credential_id: credentialId,
      vector_db_credential_id: credentialId,
      collection_name: 'stack_docs',
      llm_model: 'local-model',
      embedding_model: 'local-embedding',
      vector_store_provider: 'local',
    });
    expect(rag.status).toBe(200);
    ragId = rag.body.id as string;
    expect(ragId).toMatch(/^[0-9a-f]{24}$/);
    const got = await call('GET', `/v3/rag/${ragId}`);
    expect({ status: got.status, id: got.body.id }).toEqual({ status: 200, id: ragId });
  });

  it('rag: a knowledge base filled with a text and a PDF (read by the OCR service), then asked by an agent', async () => {
    const text = await call('POST', `/v3/train/text/?rag_id=${ragId}`, {
      data: [
        {
          text: 'The Zephyr-9 router ships with firmware 4.2 and supports mesh networking out of the box.',
          source: 'router-manual.txt',
          metadata: { team: 'support' },
        },
      ],
    });
    expect(text.status).toBe(200);
    expect(text.body).toEqual({
      message: expect.any(String),
      rag_id: ragId,
      documents: [{ id: expect.any(String), source: 'router-manual.txt' }],
      chunks: 1,
    });
    const form = new FormData();
    form.append(
      'file',
      new Blob([await textPdf([['Warranty: the Zephyr-9 is covered for three years from purchase.']])], {
        type: 'application/pdf',
      }),
      'warranty.pdf',
    );
    const pdf = await fetch(`${gateway}/v3/train/pdf/?rag_id=${ragId}`, {
      method: 'POST',
      headers: { 'x-api-key': key },
      body: form,
    });
    expect(pdf.status).toBe(200);
    const listed = await call('GET', `/v3/rag/documents/${ragId}/`);
    expect(listed.status).toBe(200);
    expect((listed.body.documents as { source: string }[]).map((d) => d.source).sort()).toEqual([
      'router-manual.txt',
      'warranty.pdf',
    ]);

    const retrieved = await call('GET', `/v3/rag/${ragId}/retrieve/?query=${encodeURIComponent('Zephyr-9 warranty')}`);
    expect(retrieved.status).toBe(200);
    expect((retrieved.body.results as { text: string }[])[0]?.text).toContain('three years');

    // An agent with the hosted product's knowledge-base feature shape answers with that knowledge in its prompt.
    const agent = await call('POST', '/v3/agents/', {
      name: 'kb bot',
      system_prompt: 'Answer from the knowledge base.',
      provider_id: 'openai',
      model: 'local-model',
      llm_credential_id: credentialId,
      features: [
        {
          type: 'KNOWLEDGE_BASE',
          config: { lyzr_rag: { rag_id: ragId, params: { top_k: 3, score_threshold: 0 } }, agentic_rag: [] },
          priority: 0,
        },
      ],
    });
    expect(agent.status).toBe(201);
    const before = llm.requests.length;
    const chat = await call('POST', '/v3/inference/chat/', {
      agent_id: String(agent.body.id),
      session_id: 'kb-1',
      message: 'Which firmware does the Zephyr-9 ship with?',
    });
    expect(chat.status).toBe(200);
    const prompt = llm.requests
      .slice(before)
      .filter((r) => r.url.endsWith('/chat/completions'))
      .map((r) => r.body)
      .join('\n');
    expect(prompt).toContain('firmware 4.2');

    // A feature that names no rag id is refused when the agent is saved, not at chat time.
    const broken = await call('POST', '/v3/agents/', {
      name: 'kb bot without a base',
      system_prompt: 'x',
      provider_id: 'openai',
      model: 'local-model',
      features: [{ type: 'KNOWLEDGE_BASE', config: { lyzr_rag: { params: { top_k: 3 } } }, priority: 0 }],
    });
    expect(broken.status).toBe(422);

    const id = (text.body.documents as { id: string }[])[0]!.id;
    const deleted = await call('DELETE', `/v3/rag/${ragId}/docs/`, [id]);
    expect({ status: deleted.status, body: deleted.body }).toEqual({ status: 200, body: { deleted: 1 } });
  }, 90_000);

  it('graph: the knowledge graph of that configuration, which the graph service checks with the rag service', async () => {
    const graph = await call('GET', `/v4/knowledge_graph/graph/?rag_id=${ragId}&limit=10`);
    expect({ status: graph.status, body: graph.body }).toEqual({
      status: 200,
      body: { rag_id: ragId, nodes: [], edges: [] },
    });
    const other = await call('GET', '/v4/knowledge_graph/graph/?rag_id=0123456789abcdef01234567&limit=10');
    expect(other.status).toBe(404);
  });

  it('rai: a policy stored and listed', async () => {
    const made = await call('POST', '/v1/rai/policies', { name: 'stack policy' });
    expect(made.status).toBe(201);
    const list = await call('GET', '/v1/rai/policies');
    expect(list.status).toBe(200);
    expect((list.body.policies as unknown[]).length).toBe(1);
  });

  it('voice: a transcript ingested and read back', async () => {
    const sessionId = randomUUID();
    const made = await call('POST', '/v1/transcripts', { sessionId, agentId: 'voice-agent' });
    expect(made.status).toBe(201);
    const got = await call('GET', `/v1/transcripts/${sessionId}`);
    expect(got.status).toBe(200);
    expect((got.body.transcript as { sessionId: string }).sessionId).toBe(sessionId);
  });

  it('ocr: a PDF uploaded and its text layer read', async () => {
    const form = new FormData();
    form.append('file', new Blob([await textPdf([['Through the gateway']])], { type: 'application/pdf' }), 'stack.pdf');
    const res = await fetch(`${gateway}/extract?organization_id=stack-org`, {
      method: 'POST',
      headers: { 'x-api-key': key },
      body: form,
    });
    expect(res.status).toBe(200);
    const body = (await res.json()) as { data: Record<string, { content: string }> };
    expect(body.data['1']?.content).toBe('Through the gateway');
  });

  it("the gateway answers a path no service owns itself, in the contract's shape", async () => {
    const res = await call('GET', '/v9/nothing-here');
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ detail: expect.any(String) });
  });
});

describe('stopping the stack', () => {
  it('every process exits by itself on SIGTERM, with status 0, and none is left', async () => {
    const names = startLevels().flat().reverse();
    for (const name of names) await procs[name]!.stop(30_000);
    for (const name of names) {
      expect({ name, ...exits[name] }).toEqual({ name, code: 0, signal: null });
      expect(() => process.kill(procs[name]!.child.pid!, 0)).toThrow();
    }
  }, 120_000);
});
