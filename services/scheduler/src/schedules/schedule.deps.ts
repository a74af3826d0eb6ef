import type { AgentDirectory } from '@platform/agent-client';
import type { Owner } from '@platform/db';
import type { Logger } from '@platform/logger';
import type { AllowEntry } from '@platform/outbound';
import type {
  ExecutionRecord,
  ExecutionRepository,
  ScheduleKind,
  ScheduleRecord,
  ScheduleRepository,
} from '@platform/scheduling';
import type { SecretBox } from '@platform/secrets';

import type { CallbackSecretsService } from '../shared/callback-config';
import type { ScheduleView } from './schedule.types';

/** What messages call a schedule of each kind. */
export const NOUN: Record<ScheduleKind, string> = { agent: 'Schedule', http: 'HTTP schedule' };

/** Keeps Redis's firing state in line with a schedule (failures are logged; the reconciler repairs them). */
export interface Firing {
  sync(s: ScheduleRecord): Promise<void>;
  remove(scheduleId: string): Promise<void>;
}

export interface ScheduleServiceDeps {
  repo: ScheduleRepository;
  executions: ExecutionRepository;
  agents: AgentDirectory;
  /** Seals HTTP schedules' header values and callback secrets (the worker opens both). */
  box: SecretBox;
  newCallbackSecret?: () => string;
  firing: Firing;
  /** Puts a stored execution on its run queue; a failure leaves it to the outbox. */
  startRun: (exec: ExecutionRecord) => Promise<unknown>;
  clock: () => Date;
  logger: Logger;
  /** Hosts a target or callback may name although loopback or private (OUTBOUND_ALLOW_HOSTS, as the worker's). */
  allow?: AllowEntry[];
}

/**
 * What the parts of the schedule service (schedule.service.ts, its create, update and callback secret in
 * schedule.edit.ts, its pause, resume and runs in schedule.controls.ts) share: its dependencies and the helpers below.
 */
export interface ScheduleParts extends ScheduleServiceDeps {
  /** `allow` of the dependencies, or none. */
  allow: AllowEntry[];
  callbacks: CallbackSecretsService;
  /** The public object of a schedule, its next run from the clock's now. */
  present: (r: ScheduleRecord) => ScheduleView;
  /** The caller's schedule of `kind`; NotFoundError otherwise. */
  found: (owner: Owner, kind: ScheduleKind, id: string) => Promise<ScheduleRecord>;
}
