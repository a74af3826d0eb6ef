import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, readlinkSync } from 'node:fs';

import { registerChild } from './children';
import { freePort } from './net';

export interface ServiceProcessOptions {
  /** The compiled entry point, e.g. services/agent/dist/main.js. */
  script: string;
  /** Added to (and overriding) this process's environment. PORT is set by the helper. */
  env?: Record<string, string>;
  /** Port to listen on; a free one by default. */
  port?: number;
  /** Path that answers 200 once the service is ready. */
  readyPath?: string;
  timeoutMs?: number;
}

export interface ServiceProcess {
  /** http://127.0.0.1:<port> */
  url: string;
  port: number;
  child: ChildProcess;
  /** What the process wrote so far (stdout and stderr, last 64 KiB). */
  output(): string;
  /**
   * The first error-level log lines the process wrote (up to 200; 503s answered during an outage left out), kept apart
   * from `output()` so that a long run's later output cannot push out the error that explains a failure.
   */
  errorLines(): string[];
  /** SIGTERM, then SIGKILL after `graceMs`; resolves once the process has exited. */
  stop(graceMs?: number): Promise<void>;
}

const MAX_OUTPUT = 64 * 1024;
const MAX_ERROR_LINES = 200;
/**
 * An error-level line other than a 503 answered while a store was away: those are expected by the thousand in an
 * outage, and would push out of the first 200 the one error that explains a failure.
 */
const isUnexplainedError = (line: string) => /"level":"error"/.test(line) && !/"status":503\b/.test(line);

/**
 * Starts a service as a real Node process (as in production: its own main.ts reading env) and waits until
 * `readyPath` answers 200. Fails with the process's output when it exits or is not ready in time.
 */
export async function startServiceProcess(opts: ServiceProcessOptions): Promise<ServiceProcess> {
  if (!existsSync(opts.script)) throw new Error(`${opts.script} does not exist: build first (pnpm build)`);
  // A port found free can be taken by another process (another test file's service, a supertest server) before the
  // child binds it; the readiness probe would then be answered by that other server. The child fails to bind and is
  // started again on another port, unless the caller chose the port.
  for (let attempt = 1; ; attempt += 1) {
    const started = await startOnce(opts, opts.port ?? (await freePort()));
    if (started !== PORT_TAKEN) return started;
    if (opts.port !== undefined || attempt >= PORT_ATTEMPTS)
      throw new Error(`${opts.script}: port taken by another process (${attempt} attempts)`);
  }
}

const PORT_ATTEMPTS = 5;
const PORT_TAKEN = Symbol('port taken');

async function startOnce(opts: ServiceProcessOptions, port: number): Promise<ServiceProcess | typeof PORT_TAKEN> {
  const url = `http://127.0.0.1:${port}`;
  let output = '';
  // SERVICE_CPU_PROF_DIR: each service process writes a V8 CPU profile there when it exits (benchmark profiling).
  const profile = process.env.SERVICE_CPU_PROF_DIR
    ? ['--cpu-prof', `--cpu-prof-dir=${process.env.SERVICE_CPU_PROF_DIR}`]
    : [];
  const child = spawn(process.execPath, [...profile, opts.script], {
    env: { ...process.env, ...opts.env, PORT: String(port) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const errorLines: string[] = [];
  let partial = '';
  const keep = (chunk: Buffer) => {
    const text = chunk.toString('utf8');
    output = (output + text).slice(-MAX_OUTPUT);
    if (errorLines.length >= MAX_ERROR_LINES) return;
    const lines = (partial + text).split('\n');
    partial = (lines.pop() ?? '').slice(0, MAX_OUTPUT);
    for (const line of lines)
      if (isUnexplainedError(line) && errorLines.length < MAX_ERROR_LINES) errorLines.push(line);
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  const forget = registerChild(child);
  const exited = new Promise<void>((resolve) =>
    child.once('exit', () => {
      forget();
      resolve();
    }),
  );
  const killOnExit = () => child.kill('SIGKILL');
  process.once('exit', killOnExit);

  const self: ServiceProcess = {
    url,
    port,
    child,
    output: () => output,
    errorLines: () => [...errorLines],
    async stop(graceMs = 5000) {
      process.removeListener('exit', killOnExit);
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
      await exited;
      clearTimeout(timer);
    },
  };

  const deadline = Date.now() + (opts.timeoutMs ?? 20_000);
  for (;;) {
    if (child.exitCode !== null || child.signalCode !== null) {
      throw new Error(`${opts.script} exited (${child.exitCode ?? child.signalCode}) before it was ready:\n${output}`);
    }
    const ok = await fetch(url + (opts.readyPath ?? '/readyz'), { signal: AbortSignal.timeout(2000) }).then(
      (r) => r.status === 200,
      () => false,
    );
    if (ok) {
      if (listenerOf(port, child.pid) !== false) return self;
      await self.stop(0);
      return PORT_TAKEN;
    }
    if (Date.now() > deadline) {
      await self.stop(0);
      throw new Error(`${opts.script} was not ready on ${url} in time:\n${output}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
}

/**
 * Whether the TCP socket listening on `port` belongs to process `pid` (Linux: its descriptors against
 * /proc/net/tcp{,6}); undefined where the listening sockets cannot be read. A process that is gone (it failed to
 * bind and exited while another server answered) has no descriptors to read: false.
 */
function listenerOf(port: number, pid: number | undefined): boolean | undefined {
  if (pid === undefined) return undefined;
  const listening: string[] = [];
  try {
    for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
      for (const line of readFileSync(table, 'utf8').split('\n').slice(1)) {
        const cols = line.trim().split(/\s+/);
        // local_address is addr:PORT in hex, st 0A is LISTEN, the inode is the tenth column.
        if (cols.length > 9 && cols[3] === '0A' && parseInt(cols[1]!.split(':')[1] ?? '', 16) === port)
          listening.push(cols[9]!);
      }
    }
  } catch {
    return undefined;
  }
  let fds: string[];
  try {
    fds = readdirSync(`/proc/${pid}/fd`);
  } catch {
    return false;
  }
  const inodes = new Set(
    fds
      .map((fd) => {
        try {
          return /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/${pid}/fd/${fd}`))?.[1];
        } catch {
          return undefined;
        }
      })
      .filter((inode): inode is string => inode !== undefined),
  );
  return listening.some((inode) => inodes.has(inode));
}
