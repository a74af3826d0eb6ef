/**
 * The matrix catches a broken promise: with owner filtering removed from every query (a test-only mongoose plugin
 * that drops `user_id` and `org_id` from query filters, as a repository that forgot them would), the same matrix
 * reports B and C reading, changing and listing A's objects; and a route served without a probe fails coverage.
 */
import { mongoose, QUERY_LOG_ENV } from '@platform/db';

import { coverage, runMatrix } from './tenancy-kit';
import { startRaiWorld, type SecurityWorld } from './worlds';

const QUERIES =
  /^(find|findOne|countDocuments|findOneAndUpdate|updateOne|updateMany|deleteOne|deleteMany|findOneAndDelete)$/;

/** Installed before any model of this test file is compiled, so every repository of the app is affected. */
function forgetOwners(schema: mongoose.Schema): void {
  schema.pre(QUERIES, function (this: mongoose.Query<unknown, unknown>) {
    const filter = this.getFilter();
    delete filter.user_id;
    delete filter.org_id;
    this.setQuery(filter);
  });
}

// Its queries leave out the owner on purpose: they are not the services' queries the index-discipline check judges.
delete process.env[QUERY_LOG_ENV];

let world: SecurityWorld;
beforeAll(async () => {
  mongoose.plugin(forgetOwners);
  world = await startRaiWorld();
});
afterAll(async () => {
  await world?.close();
});

it('reports the routes of a service whose queries forgot the owner, and A objects changed under A', async () => {
  const found = await runMatrix(world);
  const routes = new Set(found.map((f) => f.split(' as ')[0]));
  expect([...routes]).toEqual(
    expect.arrayContaining([
      'rai GET /v1/rai/policies',
      'rai GET /v1/rai/policies/{}',
      'rai PUT /v1/rai/policies/{}',
      'rai DELETE /v1/rai/policies/{}',
    ]),
  );
  expect(found.some((f) => f.includes(' as B: '))).toBe(true);
  expect(found.some((f) => f.includes(' as C: '))).toBe(true);
  expect(found.some((f) => f.includes('changed while B and C probed'))).toBe(true);
});

it('fails the coverage check for a route served without a probe', () => {
  const { 'POST /v1/rai/inference': _dropped, ...rest } = world.probes;
  expect(coverage({ ...world, probes: rest }).unprobed).toEqual(['POST /v1/rai/inference']);
});
