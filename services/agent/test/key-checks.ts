import type request from 'supertest';

/** A key no store holds, shaped like ours. */
export const UNKNOWN_KEY = 'sk_unknownunknownunknownunknown0000';

/** Contract §1 on one call: without a key → 403 API key missing; with an unknown key → 403 Invalid Permission. */
export async function expectKeyRequired(call: () => request.Test): Promise<void> {
  const missing = await call();
  expect(missing.status).toBe(403);
  expect(missing.body).toEqual({ detail: 'API key missing' });
  const invalid = await call().set('x-api-key', UNKNOWN_KEY);
  expect(invalid.status).toBe(403);
  expect(invalid.body).toEqual({ detail: 'Invalid Permission' });
}
