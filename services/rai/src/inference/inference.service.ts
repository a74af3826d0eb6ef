import type { Logger } from '@platform/logger';

import type { Judge } from '../judge/judge.service';
import type { PolicyService } from '../policies/policy.service';
import type { Owner } from '../policies/policy.types';
import { findingsFor, verdict } from './evaluate';
import type { Evaluation, InferenceInput } from './inference.types';

export interface InferenceServiceDeps {
  policies: PolicyService;
  logger: Logger;
  /** The LLM judge of policies that enable one. */
  judge: Judge;
}

/** Evaluates texts against the owner's policies. The text itself is never logged. */
export function createInferenceService({ policies, logger, judge }: InferenceServiceDeps) {
  return {
    async check(owner: Owner, input: InferenceInput): Promise<Evaluation> {
      const policy = await policies.load(owner, input.policy_id);
      const started = process.hrtime.bigint();
      const findings = findingsFor(policy, input.text);
      // The judge is a second opinion on what the local checks let through: a text they block costs no LLM call.
      const judged = policy.llm_judge.enabled && !findings.some((f) => f.action === 'block');
      if (judged) findings.push(...(await judge.review(owner, policy, input.text, input.direction)));
      const result = verdict(input.text, findings);
      logger.info('rai evaluation', {
        policy_id: policy.id,
        direction: input.direction,
        action: result.action,
        checks: result.violations.map((v) => v.check),
        judged,
        chars: input.text.length,
        duration_ms: Number(process.hrtime.bigint() - started) / 1e6,
      });
      return result;
    },
  };
}

export type InferenceService = ReturnType<typeof createInferenceService>;
