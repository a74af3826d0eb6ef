/**
 * Growth: a benchmark's figures with a store in use against the same benchmark's pass on an empty store, in the same
 * `pnpm bench` run (issue target: ≥ 0.9×). Reads the passes that bench/<name>/run.sh recorded (BENCH_RESULTS) and
 * prints, per figure, the ratio as measured and the ratio of each pass's figure to its own floor (the floor works in
 * fresh collections, so it shows how much of a difference is the machine's between the passes).
 *
 *   node dist/bench/kit/growth.js <results.jsonl> <bench> <figure>:<higher|lower> ...
 */
import { readFileSync } from 'node:fs';

import { out, type PassResult } from './bench-kit';

const [file, bench, ...specs] = process.argv.slice(2);
if (!file || !bench || specs.length === 0) {
  process.stderr.write('usage: growth.js <results.jsonl> <bench> <figure>:<higher|lower> ...\n');
  process.exit(2);
}
const recorded = readFileSync(file, 'utf8')
  .split('\n')
  .filter(Boolean)
  .map((l) => JSON.parse(l) as PassResult)
  .filter((p) => p.bench === bench || p.bench.startsWith(`${bench} `));
// Passes of the same settings (a bench's name carries them, e.g. "cron 1000 schedules, 1 worker(s)") are compared.
for (const name of new Set(recorded.map((p) => p.bench)))
  compare(
    name,
    recorded.filter((p) => p.bench === name),
  );

function compare(name: string, passes: PassResult[]) {
  const empty = passes.find((p) => p.stored === 0);
  const used = passes.filter((p) => p.stored > 0);
  if (!empty || used.length === 0) {
    out(`growth (${name}): no pair of passes (empty store and a store in use) recorded`);
    return;
  }
  for (const pass of used) {
    for (const spec of specs) {
      const [figure, direction] = spec.split(':') as [string, 'higher' | 'lower'];
      const a = pass.figures[figure];
      const b = empty.figures[figure];
      const fa = pass.figures[`floor_${figure}`];
      const fb = empty.figures[`floor_${figure}`];
      if (a === undefined || b === undefined) continue;
      // As a ratio where 1 is "no worse" and higher is better, whichever way the figure improves.
      const ratio = direction === 'higher' ? a / b : b / a;
      const floorRatio =
        fa !== undefined && fb !== undefined ? (direction === 'higher' ? a / fa / (b / fb) : b / fb / (a / fa)) : NaN;
      out(
        `growth (${name}) ${figure}: ${a.toFixed(1)} with ${pass.stored.toLocaleString('en')} stored against ${b.toFixed(1)} on an empty store: ${ratio.toFixed(2)}× (target ≥ 0.9×)` +
          (Number.isNaN(floorRatio) ? '' : `; against each pass's own floor ${floorRatio.toFixed(2)}×`),
      );
    }
  }
}
