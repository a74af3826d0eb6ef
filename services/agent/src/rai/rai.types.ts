import type { ServiceTarget } from '@platform/service-client';

import type { RaiVerdict, RaiViolation } from './rai.schemas.types';

export type { RaiVerdict, RaiViolation };

/** What a turn records of one RAI check: the direction, the verdict's action and what was found (no text). */
export interface RaiTurnRecord {
  direction: 'input' | 'output';
  policy_id: string;
  action: RaiVerdict['action'];
  violations: RaiViolation[];
}

/** Where the RAI service answers and how this service authenticates to it (null secret: checks fail closed). */
export type RaiTarget = ServiceTarget;
