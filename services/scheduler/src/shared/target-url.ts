import { ValidationError } from '@platform/errors';
import { refusedLiteralHost, type AllowEntry } from '@platform/outbound';

/**
 * A URL the platform will call later (a callback, an HTTP schedule's target) that names a literal IP address no call
 * may reach (and the allow-list does not name) → 422 at `field` now, rather than a failed delivery or run later. Host
 * names pass: they are checked at every connection, against what they resolve to then.
 */
export function assertCallableTarget(url: unknown, allow: AllowEntry[], field: string): void {
  if (typeof url !== 'string') return;
  const reason = refusedLiteralHost(url, allow);
  if (reason) throw ValidationError.field(['body', field], reason, 'url.refused');
}
