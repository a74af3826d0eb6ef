import { randomBytes } from 'node:crypto';

/** A short unique name for per-test-file databases. */
export function uniqueName(prefix: string): string {
  return `${prefix}_${Date.now().toString(36)}${randomBytes(3).toString('hex')}`;
}
