/** OpenAPI parameters of the execution lists (webhook executions, schedule logs, the recent views). */
const instant = (description: string) => ({ type: 'string', format: 'date-time', description });

const page = [
  { name: 'skip', in: 'query', schema: { type: 'integer', minimum: 0, default: 0 } },
  { name: 'limit', in: 'query', schema: { type: 'integer', minimum: 1, maximum: 100, default: 50 } },
];

/** `status`, `success`, `from`, `to`, `skip`, `limit`. */
export const executionListParameters = [
  {
    name: 'status',
    in: 'query',
    description:
      'Only runs in these statuses: repeat the parameter (status=failed&status=queued) or separate them with commas (status=failed,queued). Any other value → 422.',
    style: 'form',
    explode: true,
    schema: { type: 'array', items: { type: 'string', enum: ['queued', 'running', 'succeeded', 'failed', 'skipped'] } },
  },
  {
    name: 'success',
    in: 'query',
    description: 'true: succeeded runs; false: failed runs (combined with status, both must hold).',
    schema: { type: 'boolean' },
  },
  {
    name: 'from',
    in: 'query',
    description: 'Runs triggered at or after this instant (ISO 8601 with Z or an offset, or a date).',
    schema: instant('inclusive'),
  },
  {
    name: 'to',
    in: 'query',
    description: 'Runs triggered before this instant; from after to → 422.',
    schema: instant('exclusive'),
  },
  ...page,
];

/** The recent views: `agent_id` and `hours` besides the list parameters. */
export const recentExecutionParameters = [
  { name: 'agent_id', in: 'query', schema: { type: 'string' } },
  {
    name: 'hours',
    in: 'query',
    description: 'How far back the view reaches (from, when given, narrows it).',
    schema: { type: 'integer', minimum: 1, maximum: 720, default: 24 },
  },
  ...executionListParameters,
];
