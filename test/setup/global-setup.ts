import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { mongoose } from '../../libs/db/src/connect';
import { CHILDREN_DIR_ENV } from '../../libs/testing/src/children';

/**
 * Gives the test workers a folder where they record the processes they start (see global-teardown), and tells them
 * which server the tests run on (`STORE_SERVER`: `mongodb` or `ferretdb`), for the cases only one of them can run.
 */
export default async function globalSetup(): Promise<void> {
  process.env[CHILDREN_DIR_ENV] = mkdtempSync(join(tmpdir(), 'test-children-'));
  if (process.env.STORE_SERVER) return;
  const conn = await mongoose
    .createConnection(process.env.MONGODB_URI ?? 'mongodb://127.0.0.1:27017', { serverSelectionTimeoutMS: 10_000 })
    .asPromise();
  try {
    const info = await conn.db!.admin().command({ buildInfo: 1 });
    process.env.STORE_SERVER = 'ferretdbVersion' in info ? 'ferretdb' : 'mongodb';
    // Where the local development server stores its data (scripts/test.sh sets it; a bare `jest` gets the default).
    if (process.env.STORE_SERVER === 'ferretdb')
      process.env.FERRETDB_POSTGRESQL_URL ??= 'postgres://postgres@127.0.0.1:5432/ferretdb';
  } finally {
    await conn.close();
  }
}
