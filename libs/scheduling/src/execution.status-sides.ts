import type { Model } from '@platform/db';

import type { ExecutionDoc } from './execution.model';
import type { ExecutionStatus } from './execution.types';

const BATCH = 1000;

export interface StatusSide {
  /** 'in': `docs` are every run of the wanted statuses (whole documents); 'out': every run of the others (keys). */
  side: 'in' | 'out';
  docs: ExecutionDoc[];
}

/**
 * One side of a status filter, read whole: either every matching run or every other run of the series, through one
 * indexed equality pair (series, status) per status. A count of one side is the total minus the other, so the cost
 * follows the side read: the caller picks the one its newest runs say is smaller (the failed runs of a healthy
 * webhook, or its not-yet-succeeded ones). Only that side is touched: FerretDB streams every row of a query it
 * starts, so even a cursor closed early on the larger side would cost the whole of it.
 */
export async function readStatusSide(
  Execution: Model<ExecutionDoc>,
  series: string,
  side: 'in' | 'out',
  statuses: ExecutionStatus[],
): Promise<StatusSide> {
  const projection = side === 'out' ? { triggered_at: 1, seq: 1 } : undefined;
  const parts = await Promise.all(
    statuses.map((status) =>
      Execution.collection.find<ExecutionDoc>({ series, status }, { batchSize: BATCH, projection }).toArray(),
    ),
  );
  return { side, docs: parts.flat() };
}
