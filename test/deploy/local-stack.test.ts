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
import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';

import { eventually, type LocalServer, type ServiceProcess } from '@platform/testing';

import { textPdf } from '../../services/ocr/test/support/text-fixtures';
import { signSha256 } from '../../services/scheduler/src/webhooks/signature';
import {
  apps,
  entryPoint,
  INFRA,
  localRagConfig,
  startComposeStack,
  startLevels,
  type ComposeStack,
} from './compose-stack';
import { composeHealthPath, CONTRACT_PORTS } from './deploy-helpers';

let stack: ComposeStack;
let procs: Record<string, ServiceProcess>;
let exits: ComposeStack['exits'];
let llm: LocalServer;
let gateway: string;
let key: string;

beforeAll(async () => {
  stack = await startComposeStack();
  ({ procs, exits, llm, gateway, key } = stack);
}, 240_000);

afterAll(() => stack?.close(), 120_000);

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

/** Ids one test makes and the later ones use. */
let credentialId: string;
let agentId: string;
let ragId: string;

/** An agent answered through the provider stand-in, then run by the worker from a webhook. */
function agentAndWebhook(): void {
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
    // The agent service logged the gateway's request id on its own lines (written at the end of its event loop's turn,
    // so they may reach this process just after the answer).
    await eventually('the agent line with the request id', () =>
      procs.agent!.output().includes(chat.requestId) ? true : undefined,
    );
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
}

/** A RAG configuration, its knowledge base (one document read by the OCR service) and its knowledge graph. */
function ragAndGraph(): void {
  it('rag: a RAG configuration whose credentials the rag service checks with the agent service', async () => {
    const rag = await call('POST', '/v3/rag/', localRagConfig(credentialId, 'stack_docs'));
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

  agentAndWebhook();

  ragAndGraph();

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
