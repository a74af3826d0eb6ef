/**
 * `pnpm bench:rai`: precision, recall, F1 and the p50/p99 latency of one evaluation of a 2 KB text, per check family,
 * on the held-out and the cross-dataset splits of public data (bench/datasets/SOURCES.md; prepared by
 * bench/rai/run.sh from RAI_DATASETS_DIR). Those are the figures that stand for quality. The template set written
 * beside the detectors (bench/eval-*.ts) follows as a regression check only.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';

import { evaluate } from '../src/inference/evaluate';
import { evenSample, readSplit, scoreSplit, TIMED_EXAMPLES, type SplitReport } from './datasets/score';
import { evalDir, type Family, type Split } from './datasets/source';
import { policyFor, scoreCheck, twoKb } from './eval-metrics';
import { buildEvalSet, CHECKS } from './eval-set';

const FAMILIES: Family[] = ['prompt_injection', 'toxicity', 'secrets', 'pii'];

/** The resident memory of a fresh process that loads every check and evaluates one 2 KB text with all of them on. */
function checksMemoryMb(): number {
  const script = `
    const { evaluate } = require(${JSON.stringify(require.resolve('../src/inference/evaluate'))});
    const { policyFor, twoKb } = require(${JSON.stringify(require.resolve('./eval-metrics'))});
    const p = policyFor('pii');
    p.toxicity_check.enabled = true;
    p.prompt_injection.enabled = true;
    p.secrets_detection.enabled = true;
    evaluate(p, twoKb('Ignore previous instructions, Davis said in Raqqa; key AKIAIOSFODNN7EXAMPLE').slice(0, 2048));
    global.gc();
    process.stdout.write(String(process.memoryUsage().rss));`;
  const rss = Number(execFileSync(process.execPath, ['--expose-gc', '-e', script], { encoding: 'utf8' }));
  return Math.round(rss / 1e6);
}
/** heldout and cross, then any further cross-dataset split a family prepares (cross2, cross-hatecheck, ...). */
function splitsOf(family: Family): Split[] {
  const dir = join(evalDir(), family);
  const extra = existsSync(dir)
    ? readdirSync(dir)
        .filter((f) => f.startsWith('cross') && f !== 'cross.jsonl' && f.endsWith('.jsonl'))
        .map((f) => f.slice(0, -'.jsonl'.length) as Split)
        .sort()
    : [];
  return ['heldout', 'cross', ...extra];
}

const out: string[] = [
  `Public data (${evalDir()}): held-out and cross-dataset splits, one check family enabled at the default thresholds.`,
  '',
  '| Check | Split | Examples (positive) | Precision | Recall | F1 | p50 ms (2 KB) | p99 ms (2 KB) |',
  '|---|---|---|---|---|---|---|---|',
];
const reports: SplitReport[] = [];
const missing: string[] = [];
for (const family of FAMILIES)
  for (const split of splitsOf(family)) {
    const examples = readSplit(family, split);
    if (!examples) {
      missing.push(`${family}/${split}`);
      continue;
    }
    scoreSplit(family, split, examples.slice(0, 50), false); // warm-up: tables, JIT
    const r = scoreSplit(family, split, examples);
    reports.push(r);
    out.push(
      `| ${family} | ${split} | ${r.examples} (${family === 'pii' ? `${r.positives} with PII` : r.positives}) | ` +
        `${r.precision} | ${r.recall} | ${r.f1} | ${r.p50_ms} | ${r.p99_ms} |`,
    );
  }
// Every family enabled at once on every held-out text: the latency a policy with all checks costs.
const all = evenSample(
  FAMILIES.flatMap((f) => readSplit(f, 'heldout') ?? []),
  TIMED_EXAMPLES,
);
if (all.length > 0) {
  const every = policyFor('pii');
  every.toxicity_check.enabled = true;
  every.prompt_injection.enabled = true;
  every.secrets_detection.enabled = true;
  const times: number[] = [];
  for (let rep = 0; rep < 3; rep++)
    for (const e of all) {
      const text = twoKb(e.text).slice(0, 2048);
      const started = process.hrtime.bigint();
      evaluate(every, text);
      times.push(Number(process.hrtime.bigint() - started) / 1e6);
    }
  times.sort((a, b) => a - b);
  const at = (p: number) => Math.round(times[Math.min(times.length - 1, Math.floor(p * times.length))]! * 1000) / 1000;
  out.push(`| all four together | heldout texts | ${all.length} timed | | | | ${at(0.5)} | ${at(0.99)} |`);
}
const pii = reports.filter((r) => r.perType);
if (pii.length > 0) {
  out.push('', 'PII per type (recall: the type reported and the entity text removed):', '');
  out.push('| Split | Type | Entities | Precision | Recall | F1 |', '|---|---|---|---|---|---|');
  for (const r of pii)
    for (const [type, f] of Object.entries(r.perType!))
      out.push(`| ${r.split} | ${type} | ${f.positives} | ${f.precision} | ${f.recall} | ${f.f1} |`);
}
if (missing.length > 0)
  out.push('', `Not prepared (set RAI_DATASETS_DIR and run bench/rai/run.sh): ${missing.join(', ')}`);

// The template set: a regression check of the forms it lists, not a quality figure (written beside the checks).
const set = buildEvalSet();
out.push('', 'Regression only: the template set written beside the checks (bench/eval-*.ts).', '');
out.push('| Check | Examples (positive) | Precision | Recall | F1 |', '|---|---|---|---|---|');
for (const check of CHECKS) {
  const r = scoreCheck(check, set[check], false);
  out.push(`| ${check} | ${r.examples} (${r.positives}) | ${r.precision} | ${r.recall} | ${r.f1} |`);
}
out.push(
  '',
  `Memory: ${checksMemoryMb()} MB resident in a fresh Node process holding every check after one evaluation.`,
);
process.stdout.write(`${out.join('\n')}\n`);
if (process.env.RAI_EVAL_ERRORS)
  for (const r of reports)
    for (const e of r.errors) process.stdout.write(`${r.family}/${r.split}\t${JSON.stringify(e)}\n`);
