/** What every benchmark prints with: lines, percentiles, the machine's load, and how a run ends. */
import { appendFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';

export const out = (line: string): void => {
  process.stdout.write(`${line}\n`);
};

/** The p-th percentile (nearest rank) of samples, sorted or not. */
export const percentile = (samples: number[], p: number): number =>
  [...samples].sort((a, b) => a - b)[Math.min(samples.length - 1, Math.ceil((p / 100) * samples.length) - 1)] ?? NaN;

/** CPU time (ms) the whole machine has spent busy since boot, all cores: differences measure a phase's work. */
export const machineBusyMs = (): number =>
  cpus().reduce((sum, c) => sum + c.times.user + c.times.nice + c.times.sys + c.times.irq, 0);

/** The load average beside the core count: figures of a loaded shared machine are read with it. */
export const machineLoad = (): string =>
  `load average ${loadavg()
    .map((l) => l.toFixed(1))
    .join(' ')} on ${cpus().length} cores`;

/** Runs a benchmark's main and exits 0, or prints why it failed and exits 1. */
export function runBench(name: string, main: () => Promise<void>): void {
  main().then(
    () => process.exit(0),
    (err: unknown) => {
      process.stderr.write(`bench/${name} failed: ${err instanceof Error ? err.stack : String(err)}\n`);
      process.exit(1);
    },
  );
}

/** Where a benchmark's passes leave their figures for a comparison across passes (run.sh sets it; growth.ts reads it). */
export const RESULTS_ENV = 'BENCH_RESULTS';

export interface PassResult {
  bench: string;
  /** Executions stored before the pass. */
  stored: number;
  /** The pass's figures by name, and the floor's measured in the same pass. */
  figures: Record<string, number>;
}

/** Appends one pass's figures to the file named by BENCH_RESULTS (nothing when unset). */
export function recordPass(result: PassResult): void {
  const file = process.env[RESULTS_ENV];
  if (file) appendFileSync(file, `${JSON.stringify(result)}\n`);
}
