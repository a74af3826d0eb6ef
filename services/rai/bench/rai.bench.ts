/** `pnpm bench:rai`: precision, recall, F1 and p50/p99 latency (2 KB texts) of each RAI check on the evaluation set. */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

import { scoreCheck } from './eval-metrics';
import { buildEvalSet, CHECKS } from './eval-set';

const set = buildEvalSet();
if (process.env.RAI_EVAL_WRITE) {
  // The set as data files, for reading and for other tools: one JSON example per line.
  const dir = process.env.RAI_EVAL_WRITE;
  mkdirSync(dir, { recursive: true });
  for (const check of CHECKS)
    writeFileSync(join(dir, `${check}.jsonl`), set[check].map((e) => JSON.stringify(e)).join('\n') + '\n');
}
// Warm up the libraries (lexicons, compiled patterns) so the first timed example is not a cold start.
for (const check of CHECKS) scoreCheck(check, set[check], false);

const rows = CHECKS.map((check) => scoreCheck(check, set[check]));
const out = [
  '| Check | Examples (positive) | Precision | Recall | F1 | p50 ms (2 KB) | p99 ms (2 KB) |',
  '|---|---|---|---|---|---|---|',
  ...rows.map(
    (r) =>
      `| ${r.check} | ${r.examples} (${r.positives}) | ${r.precision} | ${r.recall} | ${r.f1} | ${r.p50_ms} | ${r.p99_ms} |`,
  ),
];
process.stdout.write(`${out.join('\n')}\n`);
if (process.env.RAI_EVAL_ERRORS) {
  for (const r of rows) for (const e of r.errors) process.stdout.write(`${r.check}\t${JSON.stringify(e)}\n`);
}
