/**
 * Mass assignment (contract §1 Validation): every write route of every service, sent by the owner with extra
 * server-owned fields (ids, owners, timestamps, statuses, counters, secrets). Each must be ignored or refused (422),
 * never change the outcome otherwise, never come back in an answer and never reach the database.
 */
import { routeKey, routeTable } from '../fuzz/route-table';
import { massAssignmentFindings, writes } from './extra-fields';
import { describeEachWorld } from './worlds';

describeEachWorld((world) => {
  it('has a request for every write route it serves', () => {
    const served = [...routeTable(world().app)].filter((r) => /^(POST|PUT|PATCH) /.test(r));
    const covered = new Set(Object.keys(writes(world())).map((k) => routeKey(k.split(' ')[0]!, k.split(' ')[1]!)));
    expect(served.filter((r) => !covered.has(r))).toEqual([]);
  });

  it('ignores or refuses server-owned fields on every write, and keeps none of them', async () => {
    expect(await massAssignmentFindings(world())).toEqual([]);
  }, 120_000);
});
