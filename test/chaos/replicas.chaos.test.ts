/**
 * Replicas of every process (test/chaos/replicas.stack.ts): 2 schedulers, 2 agent services, 2 workers and 2 of
 * rag, rai, voice, graph and ocr behind one gateway that takes their replicas in turn. For REPLICAS_MINUTES (2 by
 * default; longer when needed so that two minute boundaries fall inside) it sends mixed traffic through the
 * gateway: signed webhook triggers at a steady rate, reads of an agent and a webhook, writes (PATCH of the webhook,
 * PUT of the agent its runs use), a GET of each other service, and HTTP schedules firing every minute at a local
 * target. Before the kill it checks that the caches converge (an edit through one replica reaches the other through
 * the change bus, within 5 s, though the caches' TTL is a minute) and that the per-key rate limit is shared (N
 * requests alternating over the two voice replicas: exactly the limit pass). After the first minute's fires, one
 * replica of every service is killed with SIGKILL and none is restarted. Then: every trigger answered 202 ran exactly
 * once (its execution succeeded; the provider was called once for it, except runs in flight in the killed worker or
 * agent service), every fire of every minute boundary in the window ran once and hit its target once, and the
 * gateway's 5xx answers (counted) all fall in a short window after the kill.
 */
import { randomUUID } from 'node:crypto';

import { executionModel } from '@platform/scheduling';
import { startLocalServer, type LocalServer } from '@platform/testing';

import { textPdf } from '../../services/ocr/test/support/text-fixtures';
import { signSha256 } from '../../services/scheduler/src/webhooks/signature';
import { sleep } from './chaos-stack';
import { startReplicaStack, type ReplicaStack } from './replicas.stack';

const MINUTE = 60_000;
const WINDOW_MS = Number(process.env.REPLICAS_MINUTES ?? 2) * MINUTE;
const TRIGGERS_PER_S = 8;
const SCHEDULES = 6;
const VOICE_LIMIT = 30;
/** How long after the kill gateway requests may still fail (in flight on a killed replica, or just sent to it). */
const KILL_WINDOW_MS = 10_000;
/** Longest a change may take to reach the other replica's cache. */
const CONVERGE_MS = 5_000;

interface Sent {
  /** When it was sent, and when its answer (or failure) came. */
  at: number;
  end: number;
  kind: string;
  status: number;
}

let s: ReplicaStack;
let target: LocalServer;
const hits = new Map<string, number>();

beforeAll(async () => {
  target = await startLocalServer((req, res) => {
    const id = new URL(req.url, 'http://x').searchParams.get('s') ?? '?';
    hits.set(id, (hits.get(id) ?? 0) + 1);
    res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
  });
  const ttl = String(MINUTE); // caches that only the change bus can make converge within seconds
  s = await startReplicaStack({
    env: {
      scheduler: {
        WEBHOOK_CACHE_TTL_MS: ttl,
        OUTBOX_INTERVAL_MS: '500',
        RECOVER_QUEUED_AFTER_MS: '2000',
        RECONCILE_INTERVAL_MS: '5000',
        RATE_LIMIT_PER_KEY_PER_MIN: '0',
        RATE_LIMIT_PER_WEBHOOK_PER_MIN: '0',
        OUTBOUND_ALLOW_HOSTS: `127.0.0.1:${target.port}`, // the worker's: HTTP schedules name the target's address
      },
      agent: { AGENT_CACHE_TTL_MS: ttl, RATE_LIMIT_PER_KEY_PER_MIN: '0' },
      worker: {
        OUTBOUND_ALLOW_HOSTS: `127.0.0.1:${target.port}`,
        JOB_LOCK_MS: '5000',
        STALLED_INTERVAL_MS: '2000',
        WORKER_CONCURRENCY: '16',
        AGENT_RUN_CONCURRENCY: '16',
      },
      rag: { RATE_LIMIT_PER_KEY_PER_MIN: '0' },
      rai: { RATE_LIMIT_PER_KEY_PER_MIN: '0' },
      graph: { RATE_LIMIT_PER_KEY_PER_MIN: '0' },
      ocr: { RATE_LIMIT_PER_KEY_PER_MIN: '0' },
      // The one service with a low per-key limit: its counters are shared by its replicas through Redis.
      voice: { RATE_LIMIT_PER_KEY_PER_MIN: String(VOICE_LIMIT) },
    },
  });
}, 240_000);

afterAll(async () => {
  await s?.close();
  await target?.close();
}, 120_000);

it('2 of every process behind one gateway, one of each killed: triggers and fires run once, caches converge, limits are shared', async () => {
  const g = s.gateway;
  const key = await s.dbs.mintKey({ user_id: 'ops', org_id: 'acme' });
  const limitedKey = await s.dbs.mintKey({ user_id: 'limited', org_id: 'acme' });
  const voiceKey = await s.dbs.mintKey({ user_id: 'voice-reader', org_id: 'acme' });
  const api = async (method: string, path: string, body?: unknown, k = key, base = g) => {
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
  const must = async (what: string, p: Promise<{ status: number; body: Record<string, unknown> }>, ok: number) => {
    const r = await p;
    if (r.status !== ok) throw new Error(`${what}: ${r.status} ${JSON.stringify(r.body)}`);
    return r.body;
  };

  // --- Set-up, through the gateway.
  const cred = await must(
    'credential',
    api('POST', '/v3/providers/credentials', {
      name: 'local',
      provider_id: 'openai',
      credentials: { api_key: 'sk-test', base_url: `${s.llm.url}/v1` },
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
  const hook = (await must('webhook', api('POST', '/agent-webhooks/', { agent_id: runAgent }), 201)) as {
    id: string;
    secret_key: string;
  };
  const probeHook = (await must('probe webhook', api('POST', '/agent-webhooks/', { agent_id: probeAgent }), 201)) as {
    id: string;
    secret_key: string;
  };
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
  const form = new FormData();
  form.append('file', new Blob([await textPdf([['Replicas']])], { type: 'application/pdf' }), 'r.pdf');
  const extracted = await fetch(`${g}/extract?organization_id=acme`, {
    method: 'POST',
    headers: { 'x-api-key': key },
    body: form,
  });
  expect(extracted.status).toBe(200);
  const extractId = String(((await extracted.json()) as { id: string }).id);
  const scheduleIds: string[] = [];
  for (let i = 0; i < SCHEDULES; i++) {
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

  // --- The timeline: the first minute boundary 5 s after the schedules exist, the kill after its fires, the end
  // after the window and at least one more boundary.
  const t0 = Date.now();
  const firstFire = Math.ceil((t0 + 5_000) / MINUTE) * MINUTE;
  const killAt = Math.max(t0 + WINDOW_MS / 2, firstFire + 15_000);
  const endAt = Math.max(t0 + WINDOW_MS, firstFire + MINUTE + 15_000);
  const boundaries: number[] = [];
  for (let b = firstFire; b <= endAt - 15_000; b += MINUTE) boundaries.push(b);

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
  const triggers: { n: number; at: number; status: number; id?: string }[] = [];
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
      await record('rag', api('GET', `/v3/rag/${String(rag.id)}/`));
      await record('rai', api('GET', '/v1/rai/policies'));
      await record('graph', api('GET', `/v4/knowledge_graph/graph/?rag_id=${String(rag.id)}&limit=10`));
      await record('ocr', api('GET', `/extract/${extractId}?organization_id=acme`));
      // Under the voice limit: one read every 4 s is 15 a minute.
      if (i % 2 === 0 && !voiceQuiet) await record('voice', api('GET', '/v1/transcripts', undefined, voiceKey));
      await sleep(2_000);
    }
  };
  const traffic = Promise.all([sendTriggers(), reads(), writes(), others()]);

  // --- Caches converge (both replicas alive): read on each replica directly, edit through the gateway.
  await sleep(5_000);
  const [agentA, agentB] = s.procs.agent!;
  const [schedA, schedB] = s.procs.scheduler!;
  const until = async (probe: () => Promise<boolean>) => {
    const started = Date.now();
    while (!(await probe())) {
      if (Date.now() - started > 20_000) break;
      await sleep(100);
    }
    return Date.now() - started;
  };
  for (const r of [agentA!, agentB!])
    expect((await api('GET', `/v3/agents/${probeAgent}`, undefined, key, r.url)).body.name).toBe('probe-0');
  await must('edit probe agent', api('PUT', `/v3/agents/${probeAgent}`, agentBody('probe-1')), 200);
  const agentConverged = await Promise.all(
    [agentA!, agentB!].map((r) =>
      until(async () => (await api('GET', `/v3/agents/${probeAgent}`, undefined, key, r.url)).body.name === 'probe-1'),
    ),
  );
  const probeTrigger = async (base: string) => {
    const body = JSON.stringify({ probe: true });
    const res = await fetch(`${base}/webhook-trigger/${probeHook.id}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-webhook-signature': signSha256(probeHook.secret_key, body) },
      body,
    });
    return res.status;
  };
  for (const r of [schedA!, schedB!]) expect(await probeTrigger(r.url)).toBe(202);
  await must('pause', api('POST', `/agent-webhooks/${probeHook.id}/pause`), 200);
  const pauseConverged = await Promise.all(
    [schedA!, schedB!].map((r) => until(async () => (await probeTrigger(r.url)) === 409)),
  );
  await must('resume', api('POST', `/agent-webhooks/${probeHook.id}/resume`), 200);
  const resumeConverged = await Promise.all(
    [schedA!, schedB!].map((r) => until(async () => (await probeTrigger(r.url)) === 202)),
  );

  // --- The per-key limit is shared: 2 x the limit requests through the gateway, which alternates between the two
  // voice replicas (the traffic's own voice reads wait meanwhile).
  voiceQuiet = true;
  await sleep(500);
  const limited: number[] = [];
  for (let i = 0; i < 2 * VOICE_LIMIT; i++)
    limited.push((await api('GET', '/v1/transcripts', undefined, limitedKey)).status);
  voiceQuiet = false;

  // --- Kill one replica of every service, restart none.
  await sleep(Math.max(0, killAt - Date.now()));
  const killedAt = Date.now();
  const killed = Object.entries(s.procs)
    .filter(([name]) => name !== 'gateway')
    .map(([name, list]) => {
      list[1]!.child.kill('SIGKILL');
      return name;
    });
  await sleep(Math.max(0, endAt - Date.now()));
  stopped = true;
  await traffic;
  await Promise.all(inFlight);
  for (const id of scheduleIds) await api('DELETE', `/http-schedules/${id}`);

  // The killed replicas are gone and the survivors are healthy.
  const alive = async (url: string) =>
    fetch(`${url}/healthz`, { signal: AbortSignal.timeout(5_000) }).then(
      (r) => r.status === 200,
      () => false,
    );
  const survivors = await Promise.all(killed.map(async (name) => [name, await alive(s.procs[name]![0]!.url)]));
  const dead = await Promise.all(killed.map(async (name) => [name, !(await alive(s.procs[name]![1]!.url))]));

  // --- Every accepted trigger ran, and ended.
  const Execution = executionModel(s.db('scheduler'));
  const accepted = triggers.filter((t) => t.status === 202 && t.id);
  const deadline = Date.now() + 90_000;
  let runs: { _id: { toHexString(): string }; status: string }[] = [];
  for (;;) {
    runs = await Execution.find({ webhook_id: hook.id }, { status: 1 }).lean();
    const ended = runs.filter((r) => ['succeeded', 'failed', 'skipped'].includes(r.status)).length;
    if (ended === runs.length || Date.now() > deadline) break;
    await sleep(1_000);
  }
  const byId = new Map(runs.map((r) => [r._id.toHexString(), r.status]));
  const notSucceeded = accepted.filter((t) => byId.get(t.id!) !== 'succeeded');
  // Provider calls by trigger number: exactly one, except runs in flight where the worker or agent died.
  const nearKill = (at: number) => at > killedAt - 30_000 && at < killedAt + KILL_WINDOW_MS;
  const wrongCalls = accepted.filter((t) => (s.calls.get(t.n) ?? 0) !== 1);
  const repeated = wrongCalls.filter((t) => (s.calls.get(t.n) ?? 0) > 1 && nearKill(t.at));

  // --- Every fire of every boundary ran once and hit its target once.
  const fires = await Execution.find(
    { schedule_id: { $in: scheduleIds } },
    { schedule_id: 1, fire_key: 1, scheduled_for: 1, status: 1 },
  ).lean();
  const perFire = new Map<string, number>();
  for (const f of fires) perFire.set(f.fire_key, (perFire.get(f.fire_key) ?? 0) + 1);
  const missed = boundaries.flatMap((b) =>
    scheduleIds
      .filter(
        (id) =>
          !fires.some(
            (f) =>
              f.schedule_id === id && (f.scheduled_for as Date | null)?.getTime() === b && f.status === 'succeeded',
          ),
      )
      .map((id) => `${id}@${new Date(b).toISOString()}`),
  );
  const hitMismatch = scheduleIds
    .map((id, i) => ({
      id,
      hits: hits.get(String(i)) ?? 0,
      runs: fires.filter((f) => f.schedule_id === id && f.status === 'succeeded').length,
    }))
    .filter((x) => x.hits !== x.runs);

  // --- Gateway failures: none before the kill, few and only just after it.
  const failures = sent.filter((r) => r.status === 0 || r.status >= 500);
  // A request in flight at the kill (sent before it, answered after) may fail as well as one sent just after it.
  const outside = failures.filter((r) => r.end < killedAt || r.at > killedAt + KILL_WINDOW_MS);
  const statuses: Record<string, number> = {};
  for (const r of sent) statuses[`${r.kind} ${r.status}`] = (statuses[`${r.kind} ${r.status}`] ?? 0) + 1;

  process.stderr.write(
    `chaos replicas: ${Object.values(s.procs).flat().length} processes, ${killed.length} killed at ` +
      `+${Math.round((killedAt - t0) / 1000)} s, traffic ${Math.round((endAt - t0) / 1000)} s; triggers ` +
      `${triggers.length} sent, ${accepted.length} accepted, ${notSucceeded.length} not succeeded, provider calls ` +
      `≠ 1: ${wrongCalls.length} (${repeated.length} repeated near the kill); fires: ${boundaries.length} boundaries x ` +
      `${SCHEDULES} schedules, ${fires.length} executions, missed ${missed.length}, per fire > 1: ` +
      `${[...perFire.values()].filter((n) => n > 1).length}, target hits ≠ runs: ${hitMismatch.length}; caches ` +
      `converged in agent ${agentConverged.join('/')} ms, pause ${pauseConverged.join('/')} ms, resume ` +
      `${resumeConverged.join('/')} ms; voice limit ${VOICE_LIMIT}: ${limited.filter((x) => x === 200).length} of ` +
      `${limited.length} passed; gateway failures ${failures.length} (${outside.length} outside ${KILL_WINDOW_MS} ms ` +
      `after the kill)\n${JSON.stringify(statuses)}\n`,
  );

  expect([...killed].sort()).toEqual(['agent', 'graph', 'ocr', 'rag', 'rai', 'scheduler', 'voice', 'worker']);
  expect(survivors).toEqual(killed.map((name) => [name, true]));
  expect(dead).toEqual(killed.map((name) => [name, true]));
  expect(accepted.length).toBeGreaterThan(TRIGGERS_PER_S * ((endAt - t0) / 1000) * 0.5);
  expect(notSucceeded).toEqual([]);
  expect(wrongCalls).toEqual(repeated);
  expect(repeated.length).toBeLessThanOrEqual(32); // the killed worker's and agent service's runs in flight
  expect(boundaries.length).toBeGreaterThanOrEqual(2);
  expect(missed).toEqual([]);
  expect([...perFire.values()].filter((n) => n > 1)).toEqual([]);
  expect(hitMismatch).toEqual([]);
  for (const ms of [...agentConverged, ...pauseConverged, ...resumeConverged])
    expect(ms).toBeLessThanOrEqual(CONVERGE_MS);
  expect(limited.filter((x) => x === 200).length).toBe(VOICE_LIMIT);
  expect(limited.filter((x) => x !== 200)).toEqual(Array.from({ length: VOICE_LIMIT }, () => 429));
  expect(outside).toEqual([]);
  expect(failures.length).toBeLessThanOrEqual(40);
}, 480_000);
