import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { delimiter, join } from 'node:path';

import { registerChild, stopChild } from './children';
import { infraEnv } from './infra-env';
import { freePort } from './net';
import { waitForPort } from './wait-port';

/** deploy/jaeger/config.yaml: OTLP/HTTP in, traces in memory, the query API out, every port from the environment. */
const CONFIG = join(__dirname, '..', '..', '..', 'deploy', 'jaeger', 'config.yaml');

/** A tag of a span or a process in Jaeger's query API (`type`: string, bool, int64, float64 or binary). */
export interface JaegerTag {
  key: string;
  type: string;
  value: unknown;
}

/** A span's link to another: CHILD_OF names its parent, FOLLOWS_FROM an OpenTelemetry link. */
export interface JaegerReference {
  refType: 'CHILD_OF' | 'FOLLOWS_FROM';
  traceID: string;
  spanID: string;
}

export interface JaegerSpan {
  traceID: string;
  spanID: string;
  operationName: string;
  references: JaegerReference[];
  /** Microseconds since the epoch. */
  startTime: number;
  /** Microseconds. */
  duration: number;
  /** The span's attributes, and what Jaeger derives from the OpenTelemetry span (`span.kind`, `otel.status_code`). */
  tags: JaegerTag[];
  /** The key of its process in the trace's `processes`. */
  processID: string;
}

/** The emitting process: the OpenTelemetry resource (`service.name`, the other resource attributes as tags). */
export interface JaegerProcess {
  serviceName: string;
  tags: JaegerTag[];
}

/** One trace as `GET /api/traces/{traceID}` returns it (the element of its `data`). */
export interface JaegerTrace {
  /** The id in hex: 32 digits, or 16 when its upper half is zero. */
  traceID: string;
  spans: JaegerSpan[];
  processes: Record<string, JaegerProcess>;
}

/** A span of `spansOf`: what a test asserts on, without Jaeger's indirections. */
export interface TraceSpan {
  spanId: string;
  /** The parent span's id; undefined for a root span. */
  parentId?: string;
  name: string;
  /** The `service.name` of the process that emitted it. */
  service: string;
  /** The span's tags by key (attributes keep their types: strings, numbers, booleans). */
  tags: Record<string, unknown>;
  /** Microseconds since the epoch. */
  startUs: number;
  durationUs: number;
}

export interface Jaeger {
  /** `http://127.0.0.1:<port>`, the OTLP/HTTP receiver: a value for OTEL_EXPORTER_OTLP_ENDPOINT (spans: /v1/traces). */
  otlpEndpoint: string;
  /** `http://127.0.0.1:<port>`: the query API (and UI). */
  queryUrl: string;
  /** The trace as Jaeger holds it now; null while it knows no span of it. */
  trace(traceId: string): Promise<JaegerTrace | null>;
  /**
   * Polls until Jaeger holds the trace and `until` accepts it (by default: as soon as it holds any span of it), e.g.
   * `(t) => t.spans.length >= 3`, since the spans of one trace arrive separately. Throws after `timeoutMs` (10 s),
   * naming the spans it had by then.
   */
  waitForTrace(traceId: string, until?: (trace: JaegerTrace) => boolean, timeoutMs?: number): Promise<JaegerTrace>;
  /** The service names Jaeger has received spans from. */
  services(): Promise<string[]>;
  /** The most recent traces (at most `limit`) with a span of `service`. */
  tracesOf(service: string, limit?: number): Promise<JaegerTrace[]>;
  /** Kills the process (SIGKILL: it keeps everything in memory, nothing is lost that a test still needs). */
  stop(): Promise<void>;
}

/** The binary scripts/install-jaeger.sh installs: JAEGER_BIN, or jaeger in the bin folder of the first GOPATH entry. */
export function jaegerBin(): string {
  if (process.env.JAEGER_BIN) return process.env.JAEGER_BIN;
  let gopath = '';
  try {
    gopath = execFileSync('go', ['env', 'GOPATH'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
  } catch {
    gopath = process.env.GOPATH ?? '';
  }
  return join(gopath.split(delimiter)[0] || join(homedir(), 'go'), 'bin', 'jaeger');
}

/** The spans of a trace in start order, each with its parent's id, its service and its tags as a plain object. */
export function spansOf(trace: JaegerTrace): TraceSpan[] {
  return trace.spans
    .map((s) => ({
      spanId: s.spanID,
      parentId: s.references.find((r) => r.refType === 'CHILD_OF')?.spanID,
      name: s.operationName,
      service: trace.processes[s.processID]?.serviceName ?? '',
      tags: Object.fromEntries(s.tags.map((t) => [t.key, t.value])),
      startUs: s.startTime,
      durationUs: s.duration,
    }))
    .sort((a, b) => a.startUs - b.startUs);
}

async function getJson<T>(url: string): Promise<{ status: number; body: T | undefined }> {
  const res = await fetch(url);
  const text = await res.text();
  if (res.status === 404) return { status: 404, body: undefined };
  if (!res.ok) throw new Error(`Jaeger answered ${res.status} to GET ${url}: ${text.slice(0, 500)}`);
  return { status: res.status, body: JSON.parse(text) as T };
}

/**
 * A Jaeger of this test's own (deploy/jaeger/config.yaml, on free ports, traces in memory): point a service's
 * OTEL_EXPORTER_OTLP_ENDPOINT at `otlpEndpoint`, then read what it exported through the query API. Needs the binary
 * of scripts/install-jaeger.sh (scripts/infra.sh, and so `pnpm test`, installs it).
 */
export async function startJaeger(): Promise<Jaeger> {
  const bin = jaegerBin();
  if (!existsSync(bin)) {
    throw new Error(`Jaeger is not installed (no ${bin}): run scripts/install-jaeger.sh, or set JAEGER_BIN`);
  }
  const [otlpPort, queryPort, queryGrpcPort] = [await freePort(), await freePort(), await freePort()];
  const child: ChildProcess = spawn(bin, ['--config', CONFIG], {
    stdio: ['ignore', 'ignore', 'pipe'],
    env: {
      ...infraEnv(),
      JAEGER_LISTEN_HOST: '127.0.0.1',
      JAEGER_OTLP_HTTP_PORT: String(otlpPort),
      JAEGER_QUERY_PORT: String(queryPort),
      JAEGER_QUERY_GRPC_PORT: String(queryGrpcPort),
      JAEGER_LOG_LEVEL: 'warn',
    },
  });
  const forget = registerChild(child);
  child.once('exit', forget);
  process.once('exit', () => child.kill('SIGKILL'));
  // Its log is kept (the last 4 KiB) for the error when it does not start, and read on so that it never blocks.
  let log = '';
  child.stderr!.on('data', (d: Buffer) => {
    log = (log + d.toString('utf8')).slice(-4096);
  });
  const exited = new Promise<never>((_resolve, reject) => {
    child.once('exit', (code, signal) =>
      reject(new Error(`Jaeger exited (${signal ?? code}) while starting:\n${log}`)),
    );
    child.once('error', reject);
  });
  exited.catch(() => undefined); // only awaited while starting
  const ready = Promise.all([waitForPort(queryPort, 15_000), waitForPort(otlpPort, 15_000)]).catch((err: Error) => {
    throw new Error(`Jaeger did not start: ${err.message}\n${log}`);
  });
  try {
    await Promise.race([ready, exited]);
  } catch (err) {
    await stopChild(child);
    throw err;
  }

  const queryUrl = `http://127.0.0.1:${queryPort}`;
  const self: Jaeger = {
    otlpEndpoint: `http://127.0.0.1:${otlpPort}`,
    queryUrl,
    async trace(traceId) {
      const { body } = await getJson<{ data: JaegerTrace[] | null }>(`${queryUrl}/api/traces/${traceId}`);
      return body?.data?.[0] ?? null;
    },
    async waitForTrace(traceId, until = () => true, timeoutMs = 10_000) {
      const deadline = Date.now() + timeoutMs;
      let last: JaegerTrace | null = null;
      for (;;) {
        last = await self.trace(traceId);
        if (last && until(last)) return last;
        if (Date.now() > deadline) break;
        await new Promise((r) => setTimeout(r, 100));
      }
      const had = last ? spansOf(last).map((s) => `${s.service}:${s.name}`) : [];
      throw new Error(
        `trace ${traceId} not as expected in Jaeger after ${timeoutMs} ms; its spans: [${had.join(', ')}]`,
      );
    },
    async services() {
      const { body } = await getJson<{ data: string[] | null }>(`${queryUrl}/api/services`);
      return body?.data ?? [];
    },
    async tracesOf(service, limit = 20) {
      const query = new URLSearchParams({ service, limit: String(limit), lookback: '1h' });
      const { body } = await getJson<{ data: JaegerTrace[] | null }>(`${queryUrl}/api/traces?${query.toString()}`);
      return body?.data ?? [];
    },
    async stop() {
      await stopChild(child);
    },
  };
  return self;
}
