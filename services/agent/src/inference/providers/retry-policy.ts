/** At most this many retries after the first attempt. */
export const MAX_RETRIES = 2;
/** A provider's Retry-After is honoured up to this long (a longer ask waits this long). */
export const MAX_RETRY_WAIT_MS = 20_000;
const BASE_BACKOFF_MS = 500;

/** Statuses worth another attempt: rate limiting and server-side failures. */
export function isRetryableStatus(status: number): boolean {
  return status === 429 || status >= 500;
}

/**
 * How long the provider asked to wait: `retry-after-ms` (OpenAI), else `Retry-After` in seconds or as an HTTP date.
 * Undefined when it did not say or said something unreadable.
 */
export function retryAfterMs(headers: Record<string, string>, now: number): number | undefined {
  const ms = headers['retry-after-ms']?.trim();
  if (ms && /^\d+(\.\d+)?$/.test(ms)) return Number(ms);
  const value = headers['retry-after']?.trim();
  if (!value) return undefined;
  if (/^\d+$/.test(value)) return Number(value) * 1000;
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

/** Exponential backoff with jitter (500 ms, 1 s, ...), unless the provider named a wait (capped). */
export function retryDelayMs(attempt: number, askedMs: number | undefined, random: () => number = Math.random): number {
  if (askedMs !== undefined) return Math.min(askedMs, MAX_RETRY_WAIT_MS);
  return BASE_BACKOFF_MS * 2 ** attempt + Math.floor(random() * 250);
}
