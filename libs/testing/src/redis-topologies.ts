import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import IORedis from 'ioredis';

import { freePort } from './net';

/** One `redis-server` process of a local topology. */
export interface RedisNodeProcess {
  port: number;
  child: ChildProcess;
  /** SIGKILLs it (a crashed node) and resolves once it has exited. */
  kill(): Promise<void>;
}

export interface LocalRedisCluster {
  /** `redis+cluster://` URL naming every master as a seed. */
  url: string;
  nodes: RedisNodeProcess[];
  /** The ports of the nodes that are masters now. */
  masters(): Promise<number[]>;
  /** Resolves once every live node reports `cluster_state:ok` and every slot has a live master (or throws). */
  untilHealthy(timeoutMs?: number): Promise<void>;
  /**
   * SIGKILLs the master on `port` (by default the first master), then resolves once a replica has taken its place
   * and the cluster is healthy again; the killed port.
   */
  killMaster(port?: number, timeoutMs?: number): Promise<number>;
  stop(): Promise<void>;
}

export interface LocalRedisSentinel {
  /** `redis+sentinel://` URL of the sentinel, naming the monitored master. */
  url: string;
  master: RedisNodeProcess;
  sentinel: RedisNodeProcess;
  stop(): Promise<void>;
}

const REDIS_SERVER = process.env.REDIS_SERVER_BIN ?? 'redis-server';
const REDIS_CLI = process.env.REDIS_CLI_BIN ?? 'redis-cli';

/**
 * The environment without libfaketime: infrastructure runs on the real clock, as the shared Redis does, even when a
 * test moves its own processes' clocks (`pnpm test:any-date`); redis-server does not start under libfaketime.
 */
function realClockEnv(): NodeJS.ProcessEnv {
  const env = { ...process.env };
  delete env.LD_PRELOAD;
  delete env.FAKETIME;
  return env;
}

function startNode(port: number, dir: string, args: string[]): RedisNodeProcess {
  return spawnRedis(port, [
    '--port',
    String(port),
    '--bind',
    '127.0.0.1',
    '--dir',
    dir,
    '--save',
    '',
    '--appendonly',
    'no',
    ...args,
  ]);
}

function spawnRedis(port: number, argv: string[]): RedisNodeProcess {
  const child = spawn(REDIS_SERVER, argv, { stdio: 'ignore', env: realClockEnv() });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return {
    port,
    child,
    async kill() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      await exited;
    },
  };
}

async function untilAnswers(port: number, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const c = new IORedis({
      port,
      host: '127.0.0.1',
      lazyConnect: true,
      maxRetriesPerRequest: 0,
      retryStrategy: () => null,
    });
    c.on('error', () => undefined);
    try {
      await c.connect();
      if ((await c.ping()) === 'PONG') return;
    } catch {
      if (Date.now() > deadline) throw new Error(`redis-server on port ${port} did not start`);
      await new Promise((r) => setTimeout(r, 100));
    } finally {
      c.disconnect();
    }
  }
}

async function command(port: number, ...args: string[]): Promise<unknown> {
  const c = new IORedis({ port, host: '127.0.0.1', maxRetriesPerRequest: 0, retryStrategy: () => null });
  c.on('error', () => undefined);
  try {
    return await c.call(args[0]!, ...args.slice(1));
  } finally {
    c.disconnect();
  }
}

function run(cmd: string, args: string[]): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { stdio: ['ignore', 'ignore', 'pipe'], env: realClockEnv() });
    let err = '';
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    child.once('error', reject);
    child.once('exit', (code) => (code === 0 ? resolve() : reject(new Error(`${cmd} exited ${code}: ${err}`))));
  });
}

/**
 * A local Redis Cluster of `masters` masters, each with `replicasPerMaster` replicas, as separate `redis-server
 * --cluster-enabled yes` processes on free ports, made with `redis-cli --cluster create`. A short node timeout
 * (`nodeTimeoutMs`) lets a replica take over a killed master within a few seconds.
 */
export async function startRedisCluster(
  opts: { masters?: number; replicasPerMaster?: number; nodeTimeoutMs?: number } = {},
): Promise<LocalRedisCluster> {
  const masters = opts.masters ?? 3;
  const replicas = opts.replicasPerMaster ?? 1;
  const dir = mkdtempSync(join(tmpdir(), 'redis-cluster-'));
  const nodes: RedisNodeProcess[] = [];
  const stop = async () => {
    await Promise.all(nodes.map((n) => n.kill()));
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    for (let i = 0; i < masters * (1 + replicas); i++) {
      const port = await freePort();
      nodes.push(
        startNode(port, dir, [
          '--cluster-enabled',
          'yes',
          '--cluster-config-file',
          `nodes-${port}.conf`,
          '--cluster-node-timeout',
          String(opts.nodeTimeoutMs ?? 1_000),
          // A replica may always take over, however long it was cut off (a test kills masters on purpose).
          '--cluster-replica-validity-factor',
          '0',
        ]),
      );
    }
    await Promise.all(nodes.map((n) => untilAnswers(n.port)));
    await run(REDIS_CLI, [
      '--cluster',
      'create',
      ...nodes.map((n) => `127.0.0.1:${n.port}`),
      '--cluster-replicas',
      String(replicas),
      '--cluster-yes',
    ]);
  } catch (err) {
    await stop();
    throw err;
  }
  const live = () => nodes.filter((n) => n.child.exitCode === null && n.child.signalCode === null);
  const cluster: LocalRedisCluster = {
    url: `redis+cluster://${nodes
      .slice(0, masters)
      .map((n) => `127.0.0.1:${n.port}`)
      .join(',')}`,
    nodes,
    async masters() {
      const text = String(await command(live()[0]!.port, 'CLUSTER', 'NODES'));
      return text
        .split('\n')
        .filter((l) => /\bmaster\b/.test(l) && !/\bfail\b/.test(l))
        .map((l) => Number(/:(\d+)@/.exec(l)?.[1]));
    },
    async untilHealthy(timeoutMs = 20_000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const states = await Promise.all(live().map((n) => command(n.port, 'CLUSTER', 'INFO').then(String, () => '')));
        const ok = states.every((s) => /cluster_state:ok/.test(s) && /cluster_slots_ok:16384/.test(s));
        if (ok) return;
        if (Date.now() > deadline) throw new Error(`the cluster did not become healthy: ${states.join(' | ')}`);
        await new Promise((r) => setTimeout(r, 200));
      }
    },
    async killMaster(port, timeoutMs = 30_000) {
      const before = await cluster.masters();
      const victim = nodes.find((n) => n.port === (port ?? before[0]));
      if (!victim || !before.includes(victim.port)) throw new Error(`no master on port ${port}`);
      await victim.kill();
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const now = await cluster.masters().catch(() => before);
        if (!now.includes(victim.port) && now.length === before.length) break;
        if (Date.now() > deadline)
          throw new Error(`no replica took over from ${victim.port}: masters ${now.join(',')}`);
        await new Promise((r) => setTimeout(r, 200));
      }
      await cluster.untilHealthy(Math.max(1_000, deadline - Date.now()));
      return victim.port;
    },
    stop,
  };
  await cluster.untilHealthy();
  return cluster;
}

/** One Redis master and one Sentinel monitoring it (quorum 1) under the name `name`. */
export async function startRedisSentinel(name = 'platform'): Promise<LocalRedisSentinel> {
  const dir = mkdtempSync(join(tmpdir(), 'redis-sentinel-'));
  const master = startNode(await freePort(), dir, []);
  const sentinelPort = await freePort();
  const conf = join(dir, 'sentinel.conf');
  writeFileSync(conf, `port ${sentinelPort}\nbind 127.0.0.1\nsentinel monitor ${name} 127.0.0.1 ${master.port} 1\n`);
  const sentinel = spawnRedis(sentinelPort, [conf, '--sentinel']);
  const stop = async () => {
    await Promise.all([master.kill(), sentinel.kill()]);
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    await Promise.all([untilAnswers(master.port), untilAnswers(sentinelPort)]);
  } catch (err) {
    await stop();
    throw err;
  }
  return { url: `redis+sentinel://127.0.0.1:${sentinelPort}/${name}`, master, sentinel, stop };
}
