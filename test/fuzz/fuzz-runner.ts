/** Sends the generated requests to a listening service and records every answer that breaks the contract. */
import { randomInt } from 'node:crypto';
import { Agent, request as httpRequest } from 'node:http';
import fc from 'fast-check';

import { operationsOf, type OpenApiDocument } from './openapi-operations';
import { requestFor, type FuzzContext, type FuzzRequest } from './request-arbitrary';

/** Seed, count and time limit of a run: FUZZ_SEED, FUZZ_RUNS (all services together), FUZZ_TIMEOUT_MS. */
export interface FuzzSettings {
  seed: number;
  /** Requests for one service. */
  runs: number;
  timeoutMs: number;
}

/** The fixed seed of `pnpm test`, so that a red run is red again on the next try. */
export const DEFAULT_SEED = 7_340_033;
/** Requests per service in `pnpm test` (the gate needs at least 2,000 each). */
export const DEFAULT_RUNS_PER_SERVICE = 2_000;

/** FUZZ_SEED as a number; `random` draws one (`pnpm fuzz` does, and prints it, so a failing run can be repeated). */
function seedFrom(value: string | undefined): number {
  if (value === undefined || value === '') return DEFAULT_SEED;
  if (value === 'random') return randomInt(2 ** 31);
  const seed = Number(value);
  if (!Number.isSafeInteger(seed)) throw new Error(`FUZZ_SEED must be an integer or "random", not ${value}`);
  return seed;
}

/** The settings for one of `services` services, from the environment. */
export function fuzzSettings(services: number): FuzzSettings {
  const total = Number(process.env.FUZZ_RUNS ?? DEFAULT_RUNS_PER_SERVICE * services);
  return {
    seed: seedFrom(process.env.FUZZ_SEED),
    runs: Math.max(1, Math.ceil(total / services)),
    timeoutMs: Number(process.env.FUZZ_TIMEOUT_MS ?? 10_000),
  };
}

export interface FuzzResponse {
  status: number;
  contentType: string;
  body: string;
}

/** Larger answers are read but not kept (and reported): a 422 has no reason to be this big. */
const MAX_READ = 4 * 1024 * 1024;
const agent = new Agent({ keepAlive: true, maxSockets: 1 });

/** One request on a kept-alive connection; rejects when no answer comes within `timeoutMs`. */
export function send(port: number, req: FuzzRequest, timeoutMs: number): Promise<FuzzResponse> {
  return new Promise((resolve, reject) => {
    let answered = false;
    const r = httpRequest(
      { host: '127.0.0.1', port, method: req.method, path: req.url, headers: req.headers, agent },
      (res) => {
        answered = true;
        const chunks: Buffer[] = [];
        let size = 0;
        res.on('data', (c: Buffer) => {
          if (size < MAX_READ) chunks.push(c);
          size += c.length;
        });
        res.on('end', () => {
          clearTimeout(timer);
          const body =
            size > MAX_READ
              ? `(${size} bytes, over the ${MAX_READ} this fuzzer keeps)`
              : Buffer.concat(chunks).toString('utf8');
          resolve({ status: res.statusCode ?? 0, contentType: String(res.headers['content-type'] ?? ''), body });
        });
        res.on('error', reject);
      },
    );
    const timer = setTimeout(() => r.destroy(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs);
    r.on('error', (err) => {
      // A server that answers before reading a large body may close while the body is still being written.
      if (!answered) {
        clearTimeout(timer);
        reject(err);
      }
    });
    r.end(req.body);
  });
}

const LOCATIONS = new Set(['body', 'query', 'path', 'header']);

/** `{"error":"Transcript not found.","details":"..."}` and nothing else. */
const isTranscriptError = (body: unknown): boolean =>
  typeof body === 'object' &&
  body !== null &&
  Object.keys(body).sort().join() === 'details,error' &&
  (body as { error: unknown }).error === 'Transcript not found.' &&
  typeof (body as { details: unknown }).details === 'string';

/** What is wrong with `res` for the contract, or undefined: no 5xx, and every error in the `detail` shape. */
export function contractViolation(res: FuzzResponse): string | undefined {
  if (res.status >= 500) return `answered ${res.status}`;
  if (res.status < 400) return undefined;
  if (!/^application\/json/.test(res.contentType))
    return `error ${res.status} is not JSON (${res.contentType || 'no content-type'})`;
  let body: unknown;
  try {
    body = JSON.parse(res.body);
  } catch {
    return `error ${res.status} body does not parse`;
  }
  // The spec's own Transcript error (voice service 404s, contract §6) carries `error` and `details` instead.
  if (res.status === 404 && isTranscriptError(body)) return undefined;
  if (typeof body !== 'object' || body === null || !('detail' in body)) return `error ${res.status} has no detail`;
  const detail = (body as { detail: unknown }).detail;
  if (res.status === 422 && Array.isArray(detail)) {
    const bad = detail.find(
      (d: { loc?: unknown[]; msg?: unknown; type?: unknown }) =>
        !Array.isArray(d.loc) ||
        !LOCATIONS.has(String(d.loc[0])) ||
        typeof d.msg !== 'string' ||
        typeof d.type !== 'string',
    );
    if (bad !== undefined) return `422 entry not in the {loc, msg, type} shape: ${JSON.stringify(bad).slice(0, 300)}`;
  } else if (typeof detail !== 'string' && !Array.isArray(detail)) {
    return `error ${res.status} detail is neither a string nor a list`;
  }
  return undefined;
}

const clip = (s: string, n: number) => (s.length > n ? `${s.slice(0, n)}… (${s.length} chars)` : s);

/** A failure report: enough to send the same request again by hand. */
export function describeRequest(req: FuzzRequest, outcome: string, res?: FuzzResponse, logged: string[] = []): string {
  const headers = { ...req.headers };
  const body = req.body ? clip(JSON.stringify(req.body.toString('utf8')), 400) : '(none)';
  return [
    `${outcome}: ${req.method} ${clip(req.url, 300)}`,
    `  operation: ${req.op}; generated: ${req.notes.join('; ')}`,
    `  headers: ${clip(JSON.stringify(headers), 400)}`,
    `  body (${req.body?.length ?? 0} bytes): ${body}`,
    ...(res ? [`  response: ${res.status} ${clip(res.body, 400)}`] : []),
    ...logged.slice(0, 2).map((l) => `  logged: ${clip(l, 1200)}`),
  ].join('\n');
}

export interface FuzzReport {
  service: string;
  seed: number;
  requests: number;
  seconds: number;
  /** Count per status code. */
  statuses: Record<string, number>;
  failures: string[];
}

/** Runs `settings.runs` requests against every operation of `doc` on the service listening on `port`. */
export async function runFuzz(
  service: string,
  port: number,
  doc: OpenApiDocument,
  ctx: FuzzContext,
  settings: FuzzSettings,
): Promise<FuzzReport> {
  const ops = operationsOf(doc);
  const arb = fc.integer({ min: 0, max: ops.length - 1 }).chain((i) => requestFor(ops[i]!, ctx));
  const report: FuzzReport = { service, seed: settings.seed, requests: 0, seconds: 0, statuses: {}, failures: [] };
  const started = Date.now();
  const property = fc.asyncProperty(arb, async (req) => {
    report.requests++;
    let res: FuzzResponse;
    try {
      res = await send(port, req, settings.timeoutMs);
    } catch (err) {
      report.statuses.error = (report.statuses.error ?? 0) + 1;
      report.failures.push(
        describeRequest(
          req,
          `request ${report.requests} failed (${(err as Error).message})`,
          undefined,
          ctx.newErrorLogs(),
        ),
      );
      return true;
    }
    report.statuses[res.status] = (report.statuses[res.status] ?? 0) + 1;
    const violation = contractViolation(res);
    const logged = ctx.newErrorLogs();
    if (violation) report.failures.push(describeRequest(req, `request ${report.requests} ${violation}`, res, logged));
    return true;
  });
  await fc.check(property, { seed: settings.seed, numRuns: settings.runs });
  report.seconds = (Date.now() - started) / 1000;
  return report;
}

/** One line per figure, for the log of the run. */
export function summary(r: FuzzReport): string {
  const byStatus = Object.entries(r.statuses)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([s, n]) => `${s}: ${n}`)
    .join(', ');
  return `fuzz ${r.service}: seed ${r.seed}, ${r.requests} requests in ${r.seconds.toFixed(1)} s (${byStatus}); ${r.failures.length} contract violations\n`;
}

/** Closes the kept-alive connections of `send`. */
export const closeConnections = () => agent.destroy();
