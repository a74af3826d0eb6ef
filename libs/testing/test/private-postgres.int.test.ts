import { connectMongo } from '@platform/db';
import { privateFerretDb, privatePostgres, type PrivateFerretDb, type PrivatePostgres } from '@platform/testing';

let pg: PrivatePostgres;
let ferret: PrivateFerretDb;

beforeAll(async () => {
  pg = await privatePostgres();
  ferret = await privateFerretDb({ postgresUrl: pg.url });
}, 60_000);
afterAll(async () => {
  await ferret.dispose();
  await pg.dispose();
});

it('a FerretDB on a private PostgreSQL keeps its data across a crash of PostgreSQL, and fails while it is down', async () => {
  const conn = await connectMongo({ uri: ferret.uri, dbName: 'probe', serverSelectionTimeoutMS: 2000 });
  try {
    const col = conn.collection('things');
    await col.insertOne({ n: 1 });
    await pg.stop();
    await expect(col.insertOne({ n: 2 })).rejects.toThrow();
    await pg.start();
    let n = 0;
    for (let i = 0; i < 50; i++) {
      try {
        n = await col.countDocuments({});
        break;
      } catch {
        await new Promise((r) => setTimeout(r, 200));
      }
    }
    expect(n).toBe(1);
  } finally {
    await conn.close();
  }
}, 60_000);
