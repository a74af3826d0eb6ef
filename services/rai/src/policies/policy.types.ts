import type { TermRule } from '../checks/check.types';
import type { PiiType } from '../checks/pii-patterns';
import type { PiiAction } from '../checks/pii.check';

export type { Owner } from '@platform/db';
export type { TermRule };

/** A keyword or custom PII entry as stored and returned: a string (spec) or an object. */
export type TermEntry = string | TermRule;

/** The rule sections of a policy (contract §6), defaults applied. */
export interface PolicyRules {
  allowed_topics: { enabled: boolean; topics: string[] };
  banned_topics: { enabled: boolean; topics: string[] };
  keywords: { enabled: boolean; keywords: TermEntry[] };
  toxicity_check: { enabled: boolean; threshold: number };
  prompt_injection: { enabled: boolean; threshold: number };
  secrets_detection: { enabled: boolean; action: 'mask' | 'block' };
  pii_detection: { enabled: boolean; types: Record<PiiType, PiiAction>; custom_pii: TermEntry[] };
}

export interface PolicyInput extends PolicyRules {
  name: string;
  description: string;
}

/** A policy update: any of the fields; each section given replaces that section. */
export type PolicyPatch = Partial<PolicyInput>;

export interface PolicyRecord extends PolicyInput {
  id: string;
  user_id: string;
  org_id: string;
  created_at: string;
  updated_at: string;
}

/** What a client sees: `_id` (spec) and `id` (contract §1), without the org. */
export type PolicyView = Omit<PolicyRecord, 'org_id'> & { _id: string };
