/** The cron benchmark's settings (from the environment) and the helpers its modules share. */
import { resolve } from 'node:path';

export const N = Number(process.env.CRON_BENCH_N ?? 1_000);
export const MINUTES = Number(process.env.CRON_BENCH_MINUTES ?? 3);
/** Fire minutes run before the window, unmeasured, so that the processes are measured warm (as the floor is). */
export const WARMUP_MINUTES = Number(process.env.CRON_BENCH_WARMUP_MINUTES ?? 1);
/** After the last window fire's minute is over, how long fires of the window may still complete. */
export const GRACE_MS = Number(process.env.CRON_BENCH_GRACE_S ?? 120) * 1000;
/** api: every schedule through POST /http-schedules/; repo: straight into the collection; auto: api for the
 * first CRON_BENCH_API_SAMPLE, then repo when the API's rate would take longer than CRON_BENCH_API_BUDGET_S. */
export const CREATE = process.env.CRON_BENCH_CREATE ?? 'auto';
export const API_SAMPLE = Number(process.env.CRON_BENCH_API_SAMPLE ?? 1_000);
export const API_BUDGET_S = Number(process.env.CRON_BENCH_API_BUDGET_S ?? 120);
export const CREATE_CONCURRENCY = Number(process.env.CRON_BENCH_CREATE_CONCURRENCY ?? 8);
export const RECONCILE_INTERVAL_MS = process.env.CRON_BENCH_RECONCILE_MS ?? '30000'; // the product default
export const FIRE_CONCURRENCY = process.env.CRON_BENCH_FIRE_CONCURRENCY ?? '128'; // the product default
export const WORKER_CONCURRENCY = process.env.CRON_BENCH_WORKER_CONCURRENCY ?? '64'; // the product default
export const WORKERS = Number(process.env.CRON_BENCH_WORKERS ?? 2);
/** Executions of other schedules stored before the run: fires and runs on a store in use. */
export const PRESEED = Number(process.env.CRON_BENCH_PRESEED ?? 100_000);
export const MIN = 60_000;
export const OWNER = { user_id: 'bench-cron', org_id: 'bench-cron' };
const ROOT = resolve(__dirname, '../../../..'); // from bench/dist/bench/cron
export const entry = (service: string) => resolve(ROOT, `services/${service}/dist/main.js`);
export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
export const iso = (ms: number) => new Date(ms).toISOString().slice(11, 19);
export const s1 = (ms: number) => (ms / 1000).toFixed(1);

export function pct(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? NaN;
}
export function lagLine(values: number[]): string {
  const s = [...values].sort((a, b) => a - b);
  const f = (n: number) => (Number.isNaN(n) ? '—' : n >= 10_000 ? `${s1(n)} s` : `${n.toFixed(0)} ms`);
  return `p50 ${f(pct(s, 50))}, p99 ${f(pct(s, 99))}, max ${f(s.at(-1) ?? NaN)} (n=${s.length})`;
}
