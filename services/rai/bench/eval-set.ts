/** The whole RAI evaluation set, per check, generated deterministically (seed below) and de-duplicated. */
import { injectionExamples } from './eval-injection';
import { seeded, unique, type Example } from './eval-kit';
import { piiExamples } from './eval-pii';
import { secretExamples } from './eval-secrets';
import { toxicityExamples } from './eval-toxicity';

export const EVAL_SEED = 20261123;
export const CHECKS = ['pii', 'secrets', 'prompt_injection', 'toxicity'] as const;
export type EvalCheck = (typeof CHECKS)[number];

export function buildEvalSet(): Record<EvalCheck, Example[]> {
  const r = seeded(EVAL_SEED);
  return {
    pii: unique(piiExamples(r)),
    secrets: unique(secretExamples(r)),
    prompt_injection: unique(injectionExamples(r)),
    toxicity: unique(toxicityExamples(r)),
  };
}
