import type { Logger } from '@platform/logger';

import type { PolicyService } from '../policies/policy.service';
import type { Owner } from '../policies/policy.types';
import { evaluate } from './evaluate';
import type { Evaluation, InferenceInput } from './inference.types';

export interface InferenceServiceDeps {
  policies: PolicyService;
  logger: Logger;
}

/** Evaluates texts against the owner's policies. The text itself is never logged. */
export function createInferenceService({ policies, logger }: InferenceServiceDeps) {
  return {
    async check(owner: Owner, input: InferenceInput): Promise<Evaluation> {
      const policy = await policies.load(owner, input.policy_id);
      const started = process.hrtime.bigint();
      const result = evaluate(policy, input.text);
      logger.info('rai evaluation', {
        policy_id: policy.id,
        direction: input.direction,
        action: result.action,
        checks: result.violations.map((v) => v.check),
        chars: input.text.length,
        duration_ms: Number(process.hrtime.bigint() - started) / 1e6,
      });
      return result;
    },
  };
}

export type InferenceService = ReturnType<typeof createInferenceService>;
