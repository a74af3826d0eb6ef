/**
 * The agent service alone against its floor (issue 44): the worker's internal on-behalf-of chat call, sent straight
 * to the real agent service process (logs at `info`, tracing off, as `pnpm start`), and the floor's agent route of
 * `trigger/floor-procs.ts` (bare `node:http`: call the LLM stand-in, store the turn), sent the same message at the
 * same concurrency. The two are measured in alternating rounds, one at a time, so that each has the machine to
 * itself and a drift of the shared machine weighs on both alike; the trigger benchmark measures all six processes
 * at once, where this one process's figure moves by a sixth from one pass to the next.
 */
import { readFileSync } from 'node:fs';
import { Agent } from 'node:http';
import { resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

import { internalCallHeaders } from '@platform/auth';
import {
  createTestDatabases,
  startFakeLlm,
  startServiceProcess,
  testInfra,
  uniqueName,
  type ServiceProcess,
} from '@platform/testing';

import { machineLoad, out, percentile, runBench } from '../kit/bench-kit';
import { postJson } from '../kit/http-json';
import { cpuGroups } from '../kit/proc-cpu';
import { bodyOf, createAgent, newStackKeys, startAgentService } from '../trigger/stack';
import { TRACING_OFF } from '../trigger/tracing-env';

const num = (name: string, fallback: number) => Number(process.env[name] ?? fallback);
const CALLS = num('AGENT_BENCH_CALLS', 3000);
const ROUNDS = num('AGENT_BENCH_ROUNDS', 6);
const WARMUP = num('AGENT_BENCH_WARMUP', 3000);
const CONCURRENCY = num('AGENT_BENCH_CONCURRENCY', 32);
/**
 * Calls per second sent open-loop (each at its own instant, not waiting for the one before); 0 sends them as fast as
 * CONCURRENCY allows. The trigger benchmark's agent gets ~80 a second: at that pace the costs that do not shrink
 * with the load (a write per call instead of one per batch, timers, wake-ups) are what the ratio shows.
 */
const RATE = num('AGENT_BENCH_RATE', 0);
/** With RATE set: seconds each side is left idle, to print its CPU per second with no call. */
const IDLE_S = num('AGENT_BENCH_IDLE_S', 10);
const OWNER = { user_id: 'bench', org_id: 'bench' };

/** One side: how to make call `i`, and the process whose CPU it costs. */
interface Side {
  name: 'floor' | 'ours';
  pid: number;
  call: (i: number) => Promise<unknown>;
}

/** `count` calls at CONCURRENCY; each must answer 200 (postJson rejects otherwise). */
async function drive(side: Side, first: number, count: number): Promise<void> {
  let next = first;
  const end = first + count;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < end) await side.call(next++);
    }),
  );
}

/** `count` calls, call `i` sent at RATE's `i`-th instant from now; each must answer 200. */
async function paced(side: Side, first: number, count: number): Promise<void> {
  const start = performance.now();
  const calls: Promise<unknown>[] = [];
  for (let i = 0; i < count; i++) {
    const wait = start + (i * 1000) / RATE - performance.now();
    if (wait > 0) await sleep(wait);
    calls.push(side.call(first + i));
  }
  await Promise.all(calls);
}

const send = (side: Side, first: number, count: number) =>
  RATE > 0 ? paced(side, first, count) : drive(side, first, count);

/** A reader of the CPU ms the process has spent since this call (`/proc/<pid>/stat`, user + system). */
function cpuSince(pid: number): () => number {
  const cpu = cpuGroups({ p: { pids: [pid] } });
  const before = cpu.read().get('p') ?? 0;
  return () => (cpu.read().get('p') ?? 0) - before;
}

/** The process's CPU ms per second while nothing is sent to it. */
async function idleMsPerS(pid: number): Promise<number> {
  const spent = cpuSince(pid);
  await sleep(IDLE_S * 1000);
  return spent() / IDLE_S;
}

/** The process's read and write system calls so far (`/proc/<pid>/io`: `syscr`, `syscw`). */
function syscalls(pid: number): { reads: number; writes: number } {
  const io = readFileSync(`/proc/${pid}/io`, 'utf8');
  const field = (name: string) => Number(new RegExp(`^${name}: (\\d+)$`, 'm').exec(io)?.[1] ?? NaN);
  return { reads: field('syscr'), writes: field('syscw') };
}

/** One round of a side: its process's CPU ms, and read and write system calls, per call over `count` calls. */
interface RoundCost {
  ms: number;
  reads: number;
  writes: number;
}

async function round(side: Side, first: number, count: number): Promise<RoundCost> {
  const spent = cpuSince(side.pid);
  const io = syscalls(side.pid);
  await send(side, first, count);
  const after = syscalls(side.pid);
  return {
    ms: spent() / count,
    reads: (after.reads - io.reads) / count,
    writes: (after.writes - io.writes) / count,
  };
}

async function main(): Promise<void> {
  const dbs = await createTestDatabases('benchagent');
  const llm = await startFakeLlm('openai');
  const procs: ServiceProcess[] = [];
  const http = new Agent({ keepAlive: true, maxSockets: CONCURRENCY });
  try {
    const keys = newStackKeys();
    const ours = await startAgentService({
      mongoUri: testInfra.mongoUri,
      authDb: dbs.authDb,
      dbName: dbs.conn.name,
      llmPort: llm.port,
      keys,
      env: TRACING_OFF,
    });
    procs.push(ours);
    const collection = uniqueName('bench_agent_floor');
    // Created before any load: FerretDB stalls on a collection created under concurrent writes.
    await dbs.conn.createCollection(`${collection}_turns`);
    const floor = await startServiceProcess({
      script: resolve(__dirname, '../trigger/floor-procs.js'),
      env: {
        MONGODB_URI: testInfra.mongoUri,
        MONGODB_DB: dbs.conn.name,
        FLOOR_COLLECTION: collection,
        FLOOR_ROLE: 'agent',
        FLOOR_LLM_BASE_URL: llm.baseUrl,
      },
    });
    procs.push(floor);

    const agentId = await createAgent(ours.url, await dbs.mintKey(OWNER), llm.baseUrl);
    const internal = internalCallHeaders(keys.internal, OWNER);
    const chat = new URL('/v3/inference/chat/', ours.url);
    const run = new URL('/run', floor.url);
    const run0 = Date.now();
    // What the worker sends for a webhook trigger's run (a session per execution), and what the floor worker sends.
    const sides: Side[] = [
      {
        name: 'floor',
        pid: floor.child.pid!,
        call: (i) => postJson(http, run, { input: JSON.parse(bodyOf(i)) as unknown }),
      },
      {
        name: 'ours',
        pid: ours.child.pid!,
        call: (i) =>
          postJson(
            http,
            chat,
            { agent_id: agentId, session_id: `execution-${run0}-${i}`, message: bodyOf(i) },
            internal,
          ),
      },
    ];
    const pace = RATE > 0 ? `${RATE} a second, open-loop` : `concurrency ${CONCURRENCY}`;
    out(`agent service alone: ${CALLS} calls a round at ${pace}, ${ROUNDS} rounds each, alternating`);
    out(`  ${machineLoad()}`);
    for (const side of sides) await drive(side, 0, WARMUP);
    const ms: Record<Side['name'], number[]> = { floor: [], ours: [] };
    const io: Record<Side['name'], { reads: number; writes: number }> = {
      floor: { reads: 0, writes: 0 },
      ours: { reads: 0, writes: 0 },
    };
    const ratios: number[] = [];
    let first = WARMUP;
    for (let r = 0; r < ROUNDS; r++) {
      // Every other round the other side goes first.
      const order = r % 2 === 0 ? sides : [...sides].reverse();
      const got: Partial<Record<Side['name'], number>> = {};
      for (const side of order) {
        const cost = await round(side, first, CALLS);
        got[side.name] = cost.ms;
        io[side.name].reads += cost.reads / ROUNDS;
        io[side.name].writes += cost.writes / ROUNDS;
        first += CALLS;
      }
      ms.floor.push(got.floor!);
      ms.ours.push(got.ours!);
      ratios.push(got.ours! / got.floor!);
      out(
        `  round ${r + 1}: floor ${got.floor!.toFixed(3)} ms, ours ${got.ours!.toFixed(3)} ms CPU per call (${(got.ours! / got.floor!).toFixed(2)}×)`,
      );
    }
    const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);
    out(
      `  pooled: floor ${(sum(ms.floor) / ROUNDS).toFixed(3)} ms, ours ${(sum(ms.ours) / ROUNDS).toFixed(3)} ms CPU per call: ${(sum(ms.ours) / sum(ms.floor)).toFixed(2)}× (median of the rounds ${percentile(ratios, 50).toFixed(2)}×; target ≤ 2×)`,
    );
    const perCall = (s: Side['name']) => `${io[s].reads.toFixed(2)} reads, ${io[s].writes.toFixed(2)} writes`;
    out(`  system calls per call (/proc/<pid>/io): floor ${perCall('floor')}; ours ${perCall('ours')}`);
    if (RATE > 0) {
      const idle = [];
      for (const side of sides) idle.push(`${side.name} ${(await idleMsPerS(side.pid)).toFixed(1)} ms`);
      out(`  idle CPU per second over ${IDLE_S} s: ${idle.join(', ')}`);
    }
    out(`  ${machineLoad()}`);
  } finally {
    http.destroy();
    await Promise.all(procs.map((p) => p.stop(5_000)));
    await llm.close();
    await dbs.cleanup();
  }
}

runBench('agent', main);
