import type { Evaluation } from '../policies/policy.schemas.types';

export type { Evaluation, InferenceBody as InferenceInput } from '../policies/policy.schemas.types';

/** One thing a check found. `score` is present for scored checks (toxicity, prompt injection). */
export type Violation = Evaluation['violations'][number];
