/**
 * One trace per trigger across every process, checked in a real Jaeger: the compose stack (every service as its
 * image runs it) with the OTEL_* variables pointing at a private Jaeger, and each path the issue names asserted on
 * the spans Jaeger holds: which services took part, which spans are there, and who is whose parent.
 */
import { randomBytes } from 'node:crypto';

import { createQueue, producerConnection, QUEUE_NAMES } from '@platform/queue';
import { spansOf, startJaeger, testInfra, type Jaeger, type TraceSpan } from '@platform/testing';

import { textPdf } from '../../services/ocr/test/support/text-fixtures';
import { signSha256 } from '../../services/scheduler/src/webhooks/signature';
import { localRagConfig, startComposeStack, type ComposeStack } from '../deploy/compose-stack';

let jaeger: Jaeger;
let stack: ComposeStack;
let credentialId: string;
let agentId: string;

/** A new W3C trace context as a caller would send it: a trace id, the caller's span id, sampled. */
function traceparent() {
  const traceId = randomBytes(16).toString('hex');
  const spanId = randomBytes(8).toString('hex');
  return { traceId, spanId, header: `00-${traceId}-${spanId}-01` };
}

async function call(method: string, path: string, body?: unknown, headers: Record<string, string> = {}) {
  const res = await fetch(`${stack.gateway}${path}`, {
    method,
    headers: {
      'x-api-key': stack.key,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      ...headers,
    },
    body: body === undefined ? undefined : JSON.stringify(body),
    signal: AbortSignal.timeout(60_000),
  });
  const text = await res.text();
  let json: Record<string, unknown> = {};
  try {
    json = text ? (JSON.parse(text) as Record<string, unknown>) : {};
  } catch {
    json = { text };
  }
  return { status: res.status, body: json, text };
}

/** Each process exports its ended spans this often (OTEL_BSP_SCHEDULE_DELAY). */
const EXPORT_EVERY_MS = 200;

/**
 * The spans of a trace once every `needed` span (`service:name`, listed as many times as it must be there) is in
 * it. Each process exports on its own: the trace is read again after a few export rounds, so that spans the other
 * processes ended before those are in it too.
 */
async function spansOfTrace(traceId: string, needed: string[]): Promise<TraceSpan[]> {
  const count = (spans: TraceSpan[], n: string) => spans.filter((s) => `${s.service}:${s.name}` === n).length;
  const has = (spans: TraceSpan[]) => needed.every((n) => count(spans, n) >= needed.filter((m) => m === n).length);
  await jaeger.waitForTrace(traceId, (t) => has(spansOf(t)), 30_000);
  await new Promise((r) => setTimeout(r, 3 * EXPORT_EVERY_MS));
  return spansOf((await jaeger.trace(traceId))!);
}

const one = (spans: TraceSpan[], service: string, name: string) => {
  const found = spans.filter((s) => s.service === service && s.name === name);
  if (found.length === 0)
    throw new Error(`no span ${service}:${name} in ${spans.map((s) => `${s.service}:${s.name}`)}`);
  return found[0]!;
};
/** Whether `span` is below `ancestor` (its parent, or its parent's, ...). */
function isBelow(spans: TraceSpan[], span: TraceSpan, ancestor: TraceSpan): boolean {
  const byId = new Map(spans.map((s) => [s.spanId, s]));
  for (let p = span.parentId; p !== undefined; p = byId.get(p)?.parentId) if (p === ancestor.spanId) return true;
  return false;
}

async function waitExecution(list: string, id: string) {
  for (let i = 0; i < 300; i++) {
    const res = await call('GET', list);
    const e = (res.body.executions as { id: string; status: string; trace_id: string | null }[] | undefined)?.find(
      (x) => x.id === id || id === '*',
    );
    if (e && ['succeeded', 'failed'].includes(e.status)) return e;
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`execution ${id} of ${list} did not end`);
}

beforeAll(async () => {
  jaeger = await startJaeger();
  stack = await startComposeStack((name, llm) => ({
    OTEL_EXPORTER_OTLP_ENDPOINT: jaeger.otlpEndpoint,
    OTEL_TRACES_SAMPLER: 'parentbased_always_on',
    OTEL_BSP_SCHEDULE_DELAY: String(EXPORT_EVERY_MS),
    // HTTP schedules call the provider stand-in's host: allowed where schedules are saved and run.
    ...(name === 'scheduler' || name === 'worker' ? { OUTBOUND_ALLOW_HOSTS: `127.0.0.1:${llm.port}` } : {}),
  }));
  const cred = await call('POST', '/v3/providers/credentials', {
    name: 'local',
    provider_id: 'openai',
    credentials: { api_key: 'sk-local-test', base_url: `${stack.llm.url}/v1` },
  });
  credentialId = cred.body.credential_id as string;
  const agent = await call('POST', '/v3/agents/', {
    name: 'traced bot',
    system_prompt: 'Answer briefly.',
    provider_id: 'openai',
    model: 'local-model',
    llm_credential_id: credentialId,
  });
  expect(agent.status).toBe(201);
  agentId = String(agent.body.id);
}, 300_000);

afterAll(async () => {
  await stack?.close();
  await jaeger?.stop();
}, 120_000);

/** A signed webhook trigger, from the caller's traceparent through the worker to the provider call. */
function tracesASignedWebhookTrigger(): void {
  it("a signed trigger with a traceparent: one trace from the gateway to the provider call, the execution's trace_id", async () => {
    const hook = await call('POST', '/agent-webhooks/', { agent_id: agentId });
    expect(hook.status).toBe(201);
    const tp = traceparent();
    const body = JSON.stringify({ event: 'traced' });
    const res = await fetch(`${stack.gateway}/webhook-trigger/${String(hook.body.id)}`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'x-webhook-signature': signSha256(hook.body.secret_key as string, body),
        traceparent: tp.header,
      },
      body,
    });
    expect(res.status).toBe(202);
    const { execution_id } = (await res.json()) as { execution_id: string };
    const exec = await waitExecution(`/agent-webhooks/${String(hook.body.id)}/executions`, execution_id);
    expect(exec).toMatchObject({ status: 'succeeded', trace_id: tp.traceId });

    const spans = await spansOfTrace(tp.traceId, [
      'gateway:POST',
      'gateway:POST',
      'scheduler:POST /webhook-trigger/:webhook_id',
      'worker:run',
      'agent:POST /v3/inference/chat/',
      'agent:agent run',
      'agent:provider call',
    ]);
    const gateway = spans.find((s) => s.service === 'gateway' && s.parentId === tp.spanId);
    expect(gateway).toBeDefined(); // the caller's span is the gateway's parent
    const intake = one(spans, 'scheduler', 'POST /webhook-trigger/:webhook_id');
    expect(isBelow(spans, intake, gateway!)).toBe(true);
    const wait = one(spans, 'worker', 'queue wait');
    const run = one(spans, 'worker', 'run');
    expect([wait.parentId, run.parentId]).toEqual([intake.spanId, intake.spanId]);
    expect(run.tags).toMatchObject({ 'execution.id': execution_id, 'run.success': true });
    expect(one(spans, 'worker', 'claim').parentId).toBe(run.spanId);
    const agentRun = one(spans, 'agent', 'agent run');
    expect(isBelow(spans, agentRun, run)).toBe(true);
    const provider = one(spans, 'agent', 'provider call');
    expect(provider.parentId).toBe(agentRun.spanId);
    expect(provider.tags).toMatchObject({
      'gen_ai.system': 'openai',
      'gen_ai.request.model': 'local-model',
      'gen_ai.usage.input_tokens': 11,
      'gen_ai.usage.output_tokens': 2,
    });
    // The provider's HTTP call is the provider span's child, and the stand-in got the same trace.
    expect(spans.some((s) => s.parentId === provider.spanId && s.tags['http.request.method'] === 'POST')).toBe(true);
    expect(stack.llm.requests.some((r) => String(r.headers.traceparent).includes(tp.traceId))).toBe(true);
    // Database commands inside the run are its spans too.
    expect(spans.some((s) => s.service === 'scheduler' && s.name === 'insert executions')).toBe(true);
    // Every line the agent service logged inside the run names the trace.
    const lines = stack.procs.agent!.output().split('\n');
    const logged = lines.find((l) => l.includes('"inference completed"') && l.includes(tp.traceId));
    expect(JSON.parse(logged!)).toMatchObject({
      trace_id: tp.traceId,
      span_id: expect.stringMatching(/^[0-9a-f]{16}$/),
    });
  }, 120_000);
}

describe('tracing across the processes, in Jaeger', () => {
  tracesASignedWebhookTrigger();

  /** Queues a fire of the schedule by hand (as the catch-up of a lost fire does), at its next cron time. */
  async function fireNow(scheduleId: string): Promise<void> {
    const redis = producerConnection(testInfra.redisUrl);
    try {
      const queue = createQueue(QUEUE_NAMES.scheduleFires, redis, {}, stack.runId);
      const fireAt = Math.ceil((Date.now() + 1) / 60_000) * 60_000;
      await queue.add('fire', { schedule_id: scheduleId, fire_at: fireAt }, { jobId: `trace-${scheduleId}` });
      await queue.close();
    } finally {
      redis.disconnect();
    }
  }

  it('a cron fire of an agent schedule: the fire is the root of its trace, the run and the provider call below it', async () => {
    const made = await call('POST', '/schedules/', {
      agent_id: agentId,
      message: 'tick',
      cron_expression: '* * * * *',
    });
    expect(made.status).toBe(201);
    const id = String(made.body.id);
    await fireNow(id);
    const exec = await waitExecution(`/schedules/${id}/logs`, '*');
    expect(exec.trace_id).toMatch(/^[0-9a-f]{32}$/);
    const spans = await spansOfTrace(exec.trace_id!, [
      'worker:cron fire',
      'worker:run',
      'agent:agent run',
      'agent:provider call',
    ]);
    const fire = one(spans, 'worker', 'cron fire');
    expect(fire.parentId).toBeUndefined();
    expect(fire.tags['schedule.id']).toBe(id);
    const run = one(spans, 'worker', 'run');
    expect(run.parentId).toBe(fire.spanId);
    expect(isBelow(spans, one(spans, 'agent', 'provider call'), run)).toBe(true);
  }, 120_000);

  it("a cron fire of an HTTP schedule: the endpoint's call is below the fire and carries its trace", async () => {
    const made = await call('POST', '/http-schedules/', {
      name: 'traced tick',
      url: `${stack.llm.url}/tick`,
      cron_expression: '* * * * *',
    });
    expect(made.status).toBe(201);
    const id = String(made.body.id);
    await fireNow(id);
    const exec = await waitExecution(`/http-schedules/${id}/logs`, '*');
    expect(exec).toMatchObject({ status: 'succeeded', trace_id: expect.stringMatching(/^[0-9a-f]{32}$/) });
    const spans = await spansOfTrace(exec.trace_id!, ['worker:cron fire', 'worker:run']);
    const run = one(spans, 'worker', 'run');
    expect(run.parentId).toBe(one(spans, 'worker', 'cron fire').spanId);
    const out = spans.find((s) => s.tags['http.request.method'] !== undefined && isBelow(spans, s, run));
    expect(out).toBeDefined();
    const got = stack.llm.requests.find((r) => r.url.startsWith('/tick'));
    expect(String(got?.headers.traceparent)).toContain(exec.trace_id);
  }, 120_000);

  it('a streaming chat: the gateway, the agent run in stream mode and the streamed provider call', async () => {
    const tp = traceparent();
    const res = await call(
      'POST',
      '/v3/inference/stream/',
      { agent_id: agentId, session_id: 'traced-stream', message: 'hello' },
      { traceparent: tp.header },
    );
    expect(res.status).toBe(200);
    const spans = await spansOfTrace(tp.traceId, [
      'gateway:POST',
      'gateway:POST',
      'agent:POST /v3/inference/stream/',
      'agent:agent run',
      'agent:provider call',
    ]);
    const agentRun = one(spans, 'agent', 'agent run');
    expect(agentRun.tags['agent.mode']).toBe('stream');
    const provider = one(spans, 'agent', 'provider call');
    expect(provider.parentId).toBe(agentRun.spanId);
    expect(provider.tags['gen_ai.request.stream']).toBe(true);
    expect(isBelow(spans, agentRun, one(spans, 'gateway', 'POST'))).toBe(true);
  }, 60_000);

  tracesTheKnowledgeBaseAndRai();
});

/** The PDF training of a knowledge base (rag and OCR), then a chat that checks RAI and retrieves from that base. */
function tracesTheKnowledgeBaseAndRai(): void {
  let ragId: string;

  it('a knowledge-base PDF training: the rag service, and the OCR service reading the PDF, in one trace', async () => {
    const rag = await call('POST', '/v3/rag/', localRagConfig(credentialId, 'traced_docs'));
    expect(rag.status).toBe(200);
    ragId = rag.body.id as string;
    const tp = traceparent();
    const form = new FormData();
    const pdf = await textPdf([['Warranty: the Zephyr-9 is covered for three years from purchase.']]);
    form.append('file', new Blob([pdf], { type: 'application/pdf' }), 'warranty.pdf');
    const res = await fetch(`${stack.gateway}/v3/train/pdf/?rag_id=${ragId}`, {
      method: 'POST',
      headers: { 'x-api-key': stack.key, traceparent: tp.header },
      body: form,
    });
    expect(res.status).toBe(200);
    const spans = await spansOfTrace(tp.traceId, [
      'rag:POST /v3/train/pdf/',
      'ocr:POST /extract',
      'agent:POST /v3/providers/credentials/:credential_id/open',
    ]);
    expect(isBelow(spans, one(spans, 'ocr', 'POST /extract'), one(spans, 'rag', 'POST /v3/train/pdf/'))).toBe(true);
    // The embeddings of the new chunks, asked of the provider with the credential the agent service opens, too.
    expect(spans.some((s) => s.service === 'agent' && s.name.startsWith('POST /v3/providers/credentials'))).toBe(true);
  }, 60_000);

  it('an agent with RAI and KNOWLEDGE_BASE features: the RAI checks and the retrieval, each with its service', async () => {
    const policy = await call('POST', '/v1/rai/policies', { name: 'traced policy' });
    expect(policy.status).toBe(201);
    const agent = await call('POST', '/v3/agents/', {
      name: 'guarded kb bot',
      system_prompt: 'Answer from the knowledge base.',
      provider_id: 'openai',
      model: 'local-model',
      llm_credential_id: credentialId,
      features: [
        { type: 'RAI', config: { policy_id: String(policy.body.id) }, priority: 1 },
        {
          type: 'KNOWLEDGE_BASE',
          config: { lyzr_rag: { rag_id: ragId, params: { top_k: 3, score_threshold: 0 } }, agentic_rag: [] },
          priority: 0,
        },
      ],
    });
    expect(agent.status).toBe(201);
    const tp = traceparent();
    const chat = await call(
      'POST',
      '/v3/inference/chat/',
      { agent_id: String(agent.body.id), session_id: 'traced-kb', message: 'How long is the warranty?' },
      { traceparent: tp.header },
    );
    expect(chat.status).toBe(200);
    const spans = await spansOfTrace(tp.traceId, [
      'agent:POST /v3/inference/chat/',
      'agent:agent run',
      'agent:rai check',
      'agent:rai check',
      'agent:retrieval',
      'agent:provider call',
      'rai:POST /v1/rai/inference',
      'rai:POST /v1/rai/inference',
    ]);
    const agentRun = one(spans, 'agent', 'agent run');
    const checks = spans.filter((s) => s.service === 'agent' && s.name === 'rai check');
    expect(checks.map((c) => c.tags['rai.direction']).sort()).toEqual(['input', 'output']);
    for (const check of checks) {
      expect(isBelow(spans, check, agentRun)).toBe(true);
      expect(spans.some((s) => s.service === 'rai' && isBelow(spans, s, check))).toBe(true);
    }
    const retrieval = one(spans, 'agent', 'retrieval');
    expect(retrieval.tags['rag.config_id']).toBe(ragId);
    expect(spans.some((s) => s.service === 'rag' && s.tags['http.route'] && isBelow(spans, s, retrieval))).toBe(true);
  }, 60_000);
}
