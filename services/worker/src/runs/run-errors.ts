/** Thrown to make BullMQ retry the job after its backoff; the execution is already back to `queued`. */
export class RetryableRunError extends Error {
  override name = 'RetryableRunError';
}
