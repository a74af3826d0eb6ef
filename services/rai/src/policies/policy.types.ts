import type { TermRule } from '../checks/check.types';
import type { Policy } from './policy.schemas.types';

export type { Owner } from '@platform/db';
export type { TermRule };
export type { PolicyBody as PolicyInput, Policy as PolicyView } from './policy.schemas.types';

/** A keyword or custom PII entry as stored and returned: a string or an object. */
export type TermEntry = string | TermRule;

/** The rule sections of a policy, defaults applied: those of the OpenAPI document's `Policy`. */
export type PolicyRules = Pick<
  Policy,
  | 'allowed_topics'
  | 'banned_topics'
  | 'keywords'
  | 'toxicity_check'
  | 'prompt_injection'
  | 'secrets_detection'
  | 'pii_detection'
  | 'llm_judge'
  | 'nsfw_check'
>;

/** A policy update: any of the fields; each section given replaces that section. */
export type { PolicyUpdate as PolicyPatch } from './policy.schemas.types';

/** A stored policy as plain data: what a client sees (`Policy`, but for its `_id`) plus the owner's org. */
export interface PolicyRecord extends Omit<Policy, '_id'> {
  org_id: string;
}
