/** Runs the evaluation set through the RAI checks: precision, recall, F1 and latency per check. */
import { evaluate } from '../src/inference/evaluate';
import type { PolicyRules } from '../src/policies/policy.types';
import type { Example } from './eval-kit';
import type { EvalCheck } from './eval-set';

const PII_TYPES = [
  'CREDIT_CARD',
  'EMAIL_ADDRESS',
  'PHONE_NUMBER',
  'PERSON',
  'LOCATION',
  'IP_ADDRESS',
  'US_SSN',
  'URL',
  'DATE_TIME',
] as const;
const off = { enabled: false };

/** A policy with only `check` enabled, at the contract's default thresholds, every PII type redacted. */
export function policyFor(check: EvalCheck): PolicyRules {
  return {
    allowed_topics: { ...off, topics: [] },
    banned_topics: { ...off, topics: [] },
    keywords: { ...off, keywords: [] },
    toxicity_check: { enabled: check === 'toxicity', threshold: 0.4 },
    prompt_injection: { enabled: check === 'prompt_injection', threshold: 0.3 },
    secrets_detection: { enabled: check === 'secrets', action: 'mask' },
    pii_detection: {
      enabled: check === 'pii',
      types: Object.fromEntries(PII_TYPES.map((t) => [t, 'redact'])) as PolicyRules['pii_detection']['types'],
      custom_pii: [],
    },
    llm_judge: {
      enabled: false,
      credential_id: null,
      model: null,
      checks: ['prompt_injection', 'toxicity', 'topics'],
      timeout_ms: 3000,
      on_error: 'allow',
    },
    nsfw_check: { ...off, threshold: 0.8, validation_method: 'full' },
  };
}

export interface CheckReport {
  check: EvalCheck;
  examples: number;
  positives: number;
  precision: number;
  recall: number;
  f1: number;
  p50_ms: number;
  p99_ms: number;
  /** Examples the check got wrong (text and what it found), for inspection. */
  errors: { text: string; expected: string[]; found: string[] }[];
}

/** The PII types (or, for other checks, the check's name) an evaluation found. */
function found(check: EvalCheck, text: string, rules: PolicyRules): string[] {
  const v = evaluate(rules, text).violations;
  return check === 'pii' ? v.map((x) => x.detail.split(' ')[0]!) : v.length > 0 ? [check] : [];
}

const FILLER = ' The team met to review the roadmap and agreed to revisit the open items after the release.';
/** The example grown to about 2 KB with neutral text, as the latency target is stated for a 2 KB text. */
export const twoKb = (text: string) =>
  (text + FILLER.repeat(Math.max(0, Math.ceil((2048 - text.length) / FILLER.length)))).slice(
    0,
    Math.max(2048, text.length),
  );

const TIMING_REPEATS = 5;
const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
const round = (x: number) => Math.round(x * 1000) / 1000;

/** Scores one check over its examples: PII per (example, type), the others per example. */
export function scoreCheck(check: EvalCheck, examples: Example[], timing = true): CheckReport {
  const rules = policyFor(check);
  let tp = 0;
  let fp = 0;
  let fn = 0;
  const errors: CheckReport['errors'] = [];
  for (const e of examples) {
    const expected = check === 'pii' ? (e.types ?? []) : e.label ? [check] : [];
    const got = found(check, e.text, rules);
    const hit = got.filter((g) => expected.includes(g)).length;
    tp += hit;
    fp += got.length - hit;
    fn += expected.length - hit;
    if (hit !== got.length || hit !== expected.length) errors.push({ text: e.text, expected, found: got });
  }
  const times: number[] = [];
  if (timing) {
    // Every example five times over, so p99 rests on ~1,000 samples rather than on the 2 or 3 slowest runs.
    for (let rep = 0; rep < TIMING_REPEATS; rep++) {
      for (const e of examples) {
        const text = twoKb(e.text);
        const started = process.hrtime.bigint();
        evaluate(rules, text);
        times.push(Number(process.hrtime.bigint() - started) / 1e6);
      }
    }
    times.sort((a, b) => a - b);
  }
  const precision = tp + fp === 0 ? 1 : tp / (tp + fp);
  const recall = tp + fn === 0 ? 1 : tp / (tp + fn);
  return {
    check,
    examples: examples.length,
    positives: examples.filter((e) => e.label).length,
    precision: round(precision),
    recall: round(recall),
    f1: round(precision + recall === 0 ? 0 : (2 * precision * recall) / (precision + recall)),
    p50_ms: timing ? round(percentile(times, 50)) : 0,
    p99_ms: timing ? round(percentile(times, 99)) : 0,
    errors,
  };
}
