/**
 * What replicas.chaos.test.ts sends through the gateway of the replica stack: a client of the public API, the objects
 * the traffic uses (set up through the gateway), and the mixed traffic itself: signed webhook triggers at a steady
 * rate, reads of an agent and a webhook, writes (PATCH of the webhook, PUT of the agent its runs use) and a GET of
 * each other service, every answer recorded with when it was sent and when it came.
 */
import { randomUUID } from 'node:crypto';

import { type LocalServer } from '@platform/testing';

import { signSha256 } from '../../services/scheduler/src/webhooks/signature';
import { sleep } from './chaos-stack';

export const TRIGGERS_PER_S = 8;

export interface Sent {
  /** When it was sent, and when its answer (or failure) came. */
  at: number;
  end: number;
  kind: string;
  status: number;
}

export interface Trigger {
  n: number;
  at: number;
  status: number;
  id?: string;
}

export interface Answer {
  status: number;
  body: Record<string, unknown>;
}

/** A type, not an interface: an API answer's body (a record) converts to it. */
export type Webhook = { id: string; secret_key: string };

/** JSON calls with an API key (`key` unless another is given) to the gateway (or to one replica: `base`). */
export function gatewayClient(gateway: string, key: string) {
  const api = async (method: string, path: string, body?: unknown, k = key, base = gateway): Promise<Answer> => {
    const res = await fetch(`${base}${path}`, {
      method,
      headers: { 'x-api-key': k, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(30_000),
    });
    const text = await res.text();
    let json: Record<string, unknown> = {};
    try {
      json = text ? (JSON.parse(text) as Record<string, unknown>) : {};
    } catch {
      json = { text };
    }
    return { status: res.status, body: json };
  };
  /** The body of an answer that must have status `ok`; throws otherwise. */
  const must = async (what: string, p: Promise<Answer>, ok: number) => {
    const r = await p;
    if (r.status !== ok) throw new Error(`${what}: ${r.status} ${JSON.stringify(r.body)}`);
    return r.body;
  };
  return { api, must };
}

export type GatewayClient = ReturnType<typeof gatewayClient>;

/**
 * Through the gateway: a provider credential on the stack's LLM stand-in, the agent the runs use and a probe agent,
 * a webhook on each, a rag configuration, a rai policy and a transcript (with `voiceKey`).
 */
export async function setUpResources({ api, must }: GatewayClient, llmUrl: string, voiceKey: string) {
  const cred = await must(
    'credential',
    api('POST', '/v3/providers/credentials', {
      name: 'local',
      provider_id: 'openai',
      credentials: { api_key: 'sk-test', base_url: `${llmUrl}/v1` },
    }),
    201,
  );
  const agentBody = (name: string) => ({
    name,
    system_prompt: 'Handle events.',
    provider_id: 'openai',
    model: 'm',
    llm_credential_id: cred.credential_id,
  });
  const runAgent = String((await must('agent', api('POST', '/v3/agents/', agentBody('runs')), 201)).id);
  const probeAgent = String((await must('probe agent', api('POST', '/v3/agents/', agentBody('probe-0')), 201)).id);
  const hook = (await must('webhook', api('POST', '/agent-webhooks/', { agent_id: runAgent }), 201)) as Webhook;
  const probeHook = (await must(
    'probe webhook',
    api('POST', '/agent-webhooks/', { agent_id: probeAgent }),
    201,
  )) as Webhook;
  const rag = await must(
    'rag',
    api('POST', '/v3/rag/', {
      llm_credential_id: cred.credential_id,
      embedding_credential_id: cred.credential_id,
      vector_db_credential_id: cred.credential_id,
      collection_name: 'replica_docs',
      llm_model: 'm',
      embedding_model: 'e',
      vector_store_provider: 'local',
    }),
    200,
  );
  await must('rai policy', api('POST', '/v1/rai/policies', { name: 'replicas' }), 201);
  await must('transcript', api('POST', '/v1/transcripts', { sessionId: randomUUID(), agentId: 'v' }, voiceKey), 201);
  return { agentBody, runAgent, probeAgent, hook, probeHook, ragId: String(rag.id) };
}

/** `count` HTTP schedules firing every minute at `target` (`/tick?s=<i>`); answers their ids. */
export async function createTickSchedules({ api, must }: GatewayClient, target: LocalServer, count: number) {
  const scheduleIds: string[] = [];
  for (let i = 0; i < count; i++) {
    const made = await must(
      'http schedule',
      api('POST', '/http-schedules/', {
        name: `tick ${i}`,
        url: `${target.url}/tick?s=${i}`,
        cron_expression: '* * * * *',
        overlap_policy: 'allow',
      }),
      201,
    );
    scheduleIds.push(String(made.id));
  }
  return scheduleIds;
}

export interface TrafficOptions {
  gateway: string;
  client: GatewayClient;
  hook: Webhook;
  runAgent: string;
  agentBody: (name: string) => object;
  ragId: string;
  extractId: string;
  voiceKey: string;
}

/** Starts the mixed traffic; `stop()` ends it and waits for every request in flight. */
export function startTraffic({
  gateway: g,
  client,
  hook,
  runAgent,
  agentBody,
  ragId,
  extractId,
  voiceKey,
}: TrafficOptions) {
  const { api } = client;
  const sent: Sent[] = [];
  let stopped = false;
  let voiceQuiet = false;
  const record = async (kind: string, p: Promise<{ status: number }>) => {
    const at = Date.now();
    const status = await p.then(
      (r) => r.status,
      () => 0,
    );
    sent.push({ at, end: Date.now(), kind, status });
    return status;
  };

  // Signed triggers at a steady rate, each numbered.
  const triggers: Trigger[] = [];
  const inFlight: Promise<unknown>[] = [];
  const trigger = async (n: number) => {
    const at = Date.now();
    const body = JSON.stringify({ n });
    let status = 0;
    let id: string | undefined;
    try {
      const res = await fetch(`${g}/webhook-trigger/${hook.id}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-webhook-signature': signSha256(hook.secret_key, body) },
        body,
        signal: AbortSignal.timeout(30_000),
      });
      status = res.status;
      id = ((await res.json().catch(() => ({}))) as { execution_id?: string }).execution_id;
    } catch {
      status = 0;
    }
    triggers.push({ n, at, status, id });
    sent.push({ at, end: Date.now(), kind: 'trigger', status });
  };
  const sendTriggers = async () => {
    for (let n = 0; !stopped; n++) {
      inFlight.push(trigger(n));
      await sleep(1000 / TRIGGERS_PER_S);
    }
  };
  const reads = async () => {
    while (!stopped) {
      await record('read agent', api('GET', `/v3/agents/${runAgent}`));
      await record('read webhook', api('GET', `/agent-webhooks/${hook.id}`));
      await sleep(200);
    }
  };
  const writes = async () => {
    for (let i = 0; !stopped; i++) {
      await record('patch webhook', api('PATCH', `/agent-webhooks/${hook.id}`, { description: `edit ${i}` }));
      await record('put agent', api('PUT', `/v3/agents/${runAgent}`, agentBody('runs')));
      await sleep(2_000);
    }
  };
  const others = async () => {
    for (let i = 0; !stopped; i++) {
      await record('rag', api('GET', `/v3/rag/${ragId}/`));
      await record('rai', api('GET', '/v1/rai/policies'));
      await record('graph', api('GET', `/v4/knowledge_graph/graph/?rag_id=${ragId}&limit=10`));
      await record('ocr', api('GET', `/extract/${extractId}?organization_id=acme`));
      // Under the voice limit: one read every 4 s is 15 a minute.
      if (i % 2 === 0 && !voiceQuiet) await record('voice', api('GET', '/v1/transcripts', undefined, voiceKey));
      await sleep(2_000);
    }
  };
  const traffic = Promise.all([sendTriggers(), reads(), writes(), others()]);

  return {
    sent,
    triggers,
    /** While quiet, the traffic sends no voice reads (of its own key's limit). */
    quietVoice(quiet: boolean) {
      voiceQuiet = quiet;
    },
    async stop() {
      stopped = true;
      await traffic;
      await Promise.all(inFlight);
    },
  };
}
