import type { Model } from 'mongoose';

import { atomicStrategy } from './server-kind';

export interface Expiry {
  /** Makes sure expired documents go away: the TTL index on MongoDB (created once per process). */
  ensure(): Promise<void>;
  /** On FerretDB, which has no TTL indexes, deletes expired documents at most once per `everyMs`; in the background. */
  sweep(now: Date): void;
}

/**
 * Documents that expire at the date in `field`. MongoDB removes them with a TTL index; FerretDB refuses
 * `expireAfterSeconds`, so there a sweep deletes them. Either way removal lags, so reads must also filter out
 * documents whose date has passed.
 */
export function createExpiry<T>(model: Model<T>, field: string, everyMs = 3_600_000): Expiry {
  let ensured: Promise<void> | undefined;
  let lastSweep = 0;
  return {
    ensure() {
      ensured ??= (async () => {
        if ((await atomicStrategy(model.db)) === 'native')
          await model.collection.createIndex({ [field]: 1 }, { expireAfterSeconds: 0 });
      })().catch((err: unknown) => {
        ensured = undefined;
        throw err;
      });
      return ensured;
    },
    sweep(now) {
      if (now.getTime() - lastSweep < everyMs) return;
      lastSweep = now.getTime();
      void atomicStrategy(model.db)
        .then((s) => (s === 'claims' ? model.deleteMany({ [field]: { $lte: now } } as never) : undefined))
        .catch(() => {
          lastSweep = 0;
        });
    },
  };
}
