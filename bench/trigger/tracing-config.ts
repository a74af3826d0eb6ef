/** The tracing comparison's settings (tracing.ts): from the environment, and each variant's OTEL_* variables. */
import type { Jaeger } from '@platform/testing';

import { TRACING_OFF, tracingOn } from './tracing-env';

export const TOTAL = Number(process.env.BENCH_TRACING_TRIGGERS ?? 500);
export const WARMUP = Number(process.env.BENCH_TRACING_WARMUP ?? 300);
export const CYCLES = Number(process.env.BENCH_TRACING_CYCLES ?? 8);
export const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 32);
export const PRESEED = Number(process.env.BENCH_PRESEED_EXECUTIONS ?? 100_000);
export const VARIANTS = (process.env.BENCH_TRACING_VARIANTS ?? 'off on').split(/[\s,]+/).filter(Boolean);
export const MODE = process.env.BENCH_TRACING_MODE ?? 'together';
export const TOGETHER = MODE === 'together';
/** Issue 45: on costs at most this many times off's CPU per trigger (the three processes together). */
export const TARGET = 1.15;
/** How long a round waits for its runs to end. */
export const RUNS_WAIT_MS = 300_000;
/** How long the stacks are watched idle, before the cycles and after, once quiet for IDLE_QUIET_MS. */
export const IDLE_MS = 10_000;
export const IDLE_QUIET_MS = 5_000;
/**
 * BENCH_TRACING_MARKS=1: print each variant's process ids and each round's window (µs, monotonic), to cut the
 * services' CPU profiles (SERVICE_CPU_PROF_DIR, one file per process id) to it.
 */
export const MARKS = process.env.BENCH_TRACING_MARKS === '1';

export const PROCS = ['scheduler', 'worker', 'agent'] as const;
export type Proc = (typeof PROCS)[number];
/** The three processes, and their sum. */
export const KEYS = [...PROCS, 'three'] as const;
export type Key = (typeof KEYS)[number];
const BUILT_IN = ['off', 'on', 'always_off'];

/** A variant's own variables beyond tracing on (BENCH_TRACING_ENV_<name>: "K=V K=V"). */
const extraEnv = (variant: string): Record<string, string> => {
  if (BUILT_IN.includes(variant)) return {};
  const spec = process.env[`BENCH_TRACING_ENV_${variant}`];
  if (spec === undefined)
    throw new Error(
      `BENCH_TRACING_VARIANTS: "${variant}" is not off, on or always_off; set BENCH_TRACING_ENV_${variant}`,
    );
  return Object.fromEntries(
    spec
      .split(/\s+/)
      .filter(Boolean)
      .map((kv) => [kv.slice(0, kv.indexOf('=')), kv.slice(kv.indexOf('=') + 1)]),
  );
};

/**
 * The stack's OTEL_* variables. A traced stack's spans carry the resource attribute `bench.variant` (sent once per
 * export) so that Jaeger's traces can be told apart.
 */
export const stackEnv = (variant: string, jaeger: Jaeger): Record<string, string> => {
  if (variant === 'off') return TRACING_OFF;
  const sampler = variant === 'always_off' ? 'always_off' : 'always_on';
  return {
    OTEL_RESOURCE_ATTRIBUTES: `bench.variant=${variant}`,
    ...tracingOn(jaeger.otlpEndpoint, sampler),
    ...extraEnv(variant),
  };
};

/**
 * After a round's last run ended: longer than the longest batch schedule delay of the variants (1 s by default), so
 * that the batch processors have exported; the same wait for every variant.
 */
export const SETTLE_MS =
  Math.max(
    ...VARIANTS.map((v) => Number(extraEnv(v).OTEL_BSP_SCHEDULE_DELAY ?? process.env.OTEL_BSP_SCHEDULE_DELAY ?? 1_000)),
  ) + 500;
