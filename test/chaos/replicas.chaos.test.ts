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
 *
 * The traffic and the objects it uses: replicas.traffic.ts; what is read of the end state: replicas.outcome.ts.
 */
import { executionModel } from '@platform/scheduling';
import { startLocalServer, type LocalServer } from '@platform/testing';

import { textPdf } from '../../services/ocr/test/support/text-fixtures';
import { signSha256 } from '../../services/scheduler/src/webhooks/signature';
import { sleep } from './chaos-stack';
import { fireOutcome, gatewayFailures, KILL_WINDOW_MS, triggerOutcome } from './replicas.outcome';
import { startReplicaStack, type ReplicaStack } from './replicas.stack';
import {
  createTickSchedules,
  gatewayClient,
  setUpResources,
  startTraffic,
  TRIGGERS_PER_S,
  type GatewayClient,
  type Webhook,
} from './replicas.traffic';

const MINUTE = 60_000;
const WINDOW_MS = Number(process.env.REPLICAS_MINUTES ?? 2) * MINUTE;
const SCHEDULES = 6;
const VOICE_LIMIT = 30;
/** Longest a change may take to reach the other replica's cache. */
const CONVERGE_MS = 5_000;

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

type Traffic = ReturnType<typeof startTraffic>;

/** The objects set up through the gateway (setUpResources), an OCR extraction's id and the tick schedules' ids. */
type SetUp = Awaited<ReturnType<typeof setUpResources>> & { extractId: string; scheduleIds: string[] };

/** Through the gateway: the objects the traffic uses, a PDF extracted by ocr, and schedules that tick at `tickTarget`. */
async function setUpThroughGateway(
  stack: ReplicaStack,
  client: GatewayClient,
  key: string,
  voiceKey: string,
  tickTarget: LocalServer,
) {
  const g = stack.gateway;
  const resources = await setUpResources(client, stack.llm.url, voiceKey);
  const form = new FormData();
  form.append('file', new Blob([await textPdf([['Replicas']])], { type: 'application/pdf' }), 'r.pdf');
  const extracted = await fetch(`${g}/extract?organization_id=acme`, {
    method: 'POST',
    headers: { 'x-api-key': key },
    body: form,
  });
  expect(extracted.status).toBe(200);
  const extractId = String(((await extracted.json()) as { id: string }).id);
  const scheduleIds = await createTickSchedules(client, tickTarget, SCHEDULES);
  return { ...resources, extractId, scheduleIds };
}

/** Polls `probe` every 100 ms until it holds (or 20 s have passed); answers how long that took, in ms. */
async function until(probe: () => Promise<boolean>) {
  const started = Date.now();
  while (!(await probe())) {
    if (Date.now() - started > 20_000) break;
    await sleep(100);
  }
  return Date.now() - started;
}

/** Sends a signed probe trigger of `probeHook` to the scheduler at `base`; answers its status. */
async function probeTrigger(base: string, probeHook: Webhook) {
  const body = JSON.stringify({ probe: true });
  const res = await fetch(`${base}/webhook-trigger/${probeHook.id}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-webhook-signature': signSha256(probeHook.secret_key, body) },
    body,
  });
  return res.status;
}

/**
 * Reads the probe agent on each agent replica directly and edits it through the gateway, then pauses and resumes the
 * probe webhook through it; answers how long each replica took to see each change, in ms.
 */
async function cachesConverge(
  stack: ReplicaStack,
  { api, must }: GatewayClient,
  key: string,
  { probeAgent, probeHook, agentBody }: SetUp,
) {
  await sleep(5_000);
  const [agentA, agentB] = stack.procs.agent!;
  const [schedA, schedB] = stack.procs.scheduler!;
  for (const r of [agentA!, agentB!])
    expect((await api('GET', `/v3/agents/${probeAgent}`, undefined, key, r.url)).body.name).toBe('probe-0');
  await must('edit probe agent', api('PUT', `/v3/agents/${probeAgent}`, agentBody('probe-1')), 200);
  const agentConverged = await Promise.all(
    [agentA!, agentB!].map((r) =>
      until(async () => (await api('GET', `/v3/agents/${probeAgent}`, undefined, key, r.url)).body.name === 'probe-1'),
    ),
  );
  for (const r of [schedA!, schedB!]) expect(await probeTrigger(r.url, probeHook)).toBe(202);
  await must('pause', api('POST', `/agent-webhooks/${probeHook.id}/pause`), 200);
  const pauseConverged = await Promise.all(
    [schedA!, schedB!].map((r) => until(async () => (await probeTrigger(r.url, probeHook)) === 409)),
  );
  await must('resume', api('POST', `/agent-webhooks/${probeHook.id}/resume`), 200);
  const resumeConverged = await Promise.all(
    [schedA!, schedB!].map((r) => until(async () => (await probeTrigger(r.url, probeHook)) === 202)),
  );
  return { agentConverged, pauseConverged, resumeConverged };
}

/** Sends 2 x VOICE_LIMIT voice reads with `limitedKey` while the traffic's own voice reads wait; answers their statuses. */
async function limitedStatuses(traffic: Traffic, { api }: GatewayClient, limitedKey: string) {
  traffic.quietVoice(true);
  await sleep(500);
  const limited: number[] = [];
  for (let i = 0; i < 2 * VOICE_LIMIT; i++)
    limited.push((await api('GET', '/v1/transcripts', undefined, limitedKey)).status);
  traffic.quietVoice(false);
  return limited;
}

/** Kills one replica (the second) of every service but the gateway with SIGKILL; answers the services' names. */
function killOneOfEach(stack: ReplicaStack) {
  return Object.entries(stack.procs)
    .filter(([name]) => name !== 'gateway')
    .map(([name, list]) => {
      list[1]!.child.kill('SIGKILL');
      return name;
    });
}

/** For each killed service: [name, whether its survivor is healthy], and [name, whether its killed replica is gone]. */
async function survivorsAndDead(stack: ReplicaStack, killed: string[]) {
  const alive = async (url: string) =>
    fetch(`${url}/healthz`, { signal: AbortSignal.timeout(5_000) }).then(
      (r) => r.status === 200,
      () => false,
    );
  const survivors = await Promise.all(killed.map(async (name) => [name, await alive(stack.procs[name]![0]!.url)]));
  const dead = await Promise.all(killed.map(async (name) => [name, !(await alive(stack.procs[name]![1]!.url))]));
  return { survivors, dead };
}

it('2 of every process behind one gateway, one of each killed: triggers and fires run once, caches converge, limits are shared', async () => {
  const g = s.gateway;
  const key = await s.dbs.mintKey({ user_id: 'ops', org_id: 'acme' });
  const limitedKey = await s.dbs.mintKey({ user_id: 'limited', org_id: 'acme' });
  const voiceKey = await s.dbs.mintKey({ user_id: 'voice-reader', org_id: 'acme' });
  const client = gatewayClient(g, key);
  const { api } = client;

  // --- Set-up, through the gateway.
  const setUp = await setUpThroughGateway(s, client, key, voiceKey, target);
  const { agentBody, runAgent, hook, ragId, extractId, scheduleIds } = setUp;

  // --- The timeline: the first minute boundary 5 s after the schedules exist, the kill after its fires, the end
  // after the window and at least one more boundary.
  const t0 = Date.now();
  const firstFire = Math.ceil((t0 + 5_000) / MINUTE) * MINUTE;
  const killAt = Math.max(t0 + WINDOW_MS / 2, firstFire + 15_000);
  const endAt = Math.max(t0 + WINDOW_MS, firstFire + MINUTE + 15_000);
  const boundaries: number[] = [];
  for (let b = firstFire; b <= endAt - 15_000; b += MINUTE) boundaries.push(b);

  const traffic = startTraffic({ gateway: g, client, hook, runAgent, agentBody, ragId, extractId, voiceKey });
  const { sent, triggers } = traffic;

  // --- Caches converge (both replicas alive): read on each replica directly, edit through the gateway.
  const { agentConverged, pauseConverged, resumeConverged } = await cachesConverge(s, client, key, setUp);

  // --- The per-key limit is shared: 2 x the limit requests through the gateway, which alternates between the two
  // voice replicas (the traffic's own voice reads wait meanwhile).
  const limited = await limitedStatuses(traffic, client, limitedKey);

  // --- Kill one replica of every service, restart none.
  await sleep(Math.max(0, killAt - Date.now()));
  const killedAt = Date.now();
  const killed = killOneOfEach(s);
  await sleep(Math.max(0, endAt - Date.now()));
  await traffic.stop();
  for (const id of scheduleIds) await api('DELETE', `/http-schedules/${id}`);

  // The killed replicas are gone and the survivors are healthy.
  const { survivors, dead } = await survivorsAndDead(s, killed);

  // --- Every accepted trigger ran, and ended.
  const Execution = executionModel(s.db('scheduler'));
  const { accepted, notSucceeded, wrongCalls, repeated } = await triggerOutcome(
    s,
    Execution,
    hook.id,
    triggers,
    killedAt,
  );

  // --- Every fire of every boundary ran once and hit its target once.
  const { fires, perFire, missed, hitMismatch } = await fireOutcome(Execution, scheduleIds, boundaries, hits);

  // --- Gateway failures: none before the kill, few and only just after it.
  const { failures, outside, statuses } = gatewayFailures(sent, killedAt);

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
