/** What every benchmark prints with: lines, percentiles, the machine's load, and how a run ends. */
import { cpus, loadavg } from 'node:os';

export const out = (line: string): void => {
  process.stdout.write(`${line}\n`);
};

/** The p-th percentile (nearest rank) of samples, sorted or not. */
export const percentile = (samples: number[], p: number): number =>
  [...samples].sort((a, b) => a - b)[Math.min(samples.length - 1, Math.ceil((p / 100) * samples.length) - 1)] ?? NaN;

/** The load average beside the core count: figures of a loaded shared machine are read with it. */
/** CPU time (ms) the whole machine has spent busy since boot, all cores: differences measure a phase's work. */
export const machineBusyMs = (): number =>
  cpus().reduce((sum, c) => sum + c.times.user + c.times.nice + c.times.sys + c.times.irq, 0);

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
