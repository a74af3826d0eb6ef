import type {
  HttpSchedule,
  HttpScheduleCreateBody,
  HttpScheduleUpdateBody,
  Schedule,
  ScheduleCreateBody,
  ScheduleUpdateBody,
} from './schedule.schemas.types';

export type {
  HttpSchedule,
  ScheduleCreateBody as AgentScheduleInput,
  HttpScheduleCreateBody as HttpScheduleInput,
  Schedule as AgentSchedule,
} from './schedule.schemas.types';

/** A full input of either kind (a create body, or a PATCH merged over the current schedule). */
export type ScheduleInput = ScheduleCreateBody | HttpScheduleCreateBody;

/** A PATCH body of either kind. */
export type SchedulePatch = ScheduleUpdateBody | HttpScheduleUpdateBody;

/** The public object of a schedule of either kind. */
export type ScheduleView = Schedule | HttpSchedule;

export type { ListFilter } from '@platform/db';
