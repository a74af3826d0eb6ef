/**
 * Cross-tenant matrix (contract §1 Identity): for every route of every service, user A's objects are invisible to
 * user B (same organization) and user C (another organization): reads, writes, deletes, lists and counts answer as if
 * A's objects did not exist. A route without a probe fails the suite, so a new route cannot skip the matrix.
 */
import { coverage, runMatrix } from './tenancy-kit';
import { describeEachWorld } from './worlds';

describeEachWorld((world) => {
  it('has a probe for every route it serves, and none for a route it does not', () => {
    expect(coverage(world())).toEqual({ unprobed: [], stale: [] });
  });

  it('answers B and C for A objects exactly as for objects that do not exist, and changes nothing of A', async () => {
    expect(await runMatrix(world())).toEqual([]);
  }, 120_000);
});
