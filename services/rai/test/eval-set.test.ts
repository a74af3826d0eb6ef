import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import { scoreCheck } from '../bench/eval-metrics';
import { buildEvalSet, CHECKS } from '../bench/eval-set';

const set = buildEvalSet();

// The template set is written beside the checks: a regression test of the forms it lists, not a measure of quality
// (that is `pnpm bench:rai` on public held-out and cross-dataset splits, bench/datasets/SOURCES.md).
describe('the RAI template regression set', () => {
  it('has at least 200 distinct labelled examples per check, positives and negatives, matching the committed data files', () => {
    for (const check of CHECKS) {
      const examples = set[check];
      expect(new Set(examples.map((e) => e.text)).size).toBe(examples.length);
      expect(examples.length).toBeGreaterThanOrEqual(200);
      expect(examples.filter((e) => e.label).length).toBeGreaterThanOrEqual(100);
      expect(examples.filter((e) => !e.label).length).toBeGreaterThanOrEqual(70);
      const file = readFileSync(join(__dirname, '..', 'bench', 'data', `${check}.jsonl`), 'utf8')
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as unknown);
      expect(file).toEqual(examples);
    }
  });

  // The forms the templates list keep being recognised (a regression floor, not a quality claim).
  it.each([
    ['pii', { f1: 0.95 }],
    ['secrets', { f1: 0.95 }],
    ['prompt_injection', { recall: 0.85, precision: 0.9 }],
    ['toxicity', { f1: 0.8 }],
  ] as const)('%s keeps its regression floor', (check, target) => {
    const report = scoreCheck(check, set[check], false);
    for (const [metric, min] of Object.entries(target))
      expect({ metric, value: report[metric as 'f1'] >= min }).toEqual({ metric, value: true });
  });
});
