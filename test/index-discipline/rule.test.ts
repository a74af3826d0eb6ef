import { alternatives, serves, unserved, type Keys } from './rule';

const runs: Keys[] = [
  [['_id', 1]],
  [
    ['webhook_id', 1],
    ['user_id', 1],
    ['org_id', 1],
    ['status', 1],
    ['triggered_at', -1],
    ['_id', -1],
  ],
  [
    ['status', 1],
    ['triggered_at', 1],
    ['_id', 1],
  ],
];
const newest: Keys = [
  ['triggered_at', -1],
  ['_id', -1],
];

test('equalities in any order, then the sort, then a range: served', () => {
  const list = { user_id: '=', webhook_id: '=', org_id: '=', status: ['$in'], triggered_at: ['$gte', '$lt'] };
  expect(unserved(runs, list, newest)).toEqual([]);
  expect(
    unserved(runs, list, [
      ['triggered_at', 1],
      ['_id', 1],
    ]),
  ).toEqual([]); // the index read backwards
});

test('a missing equality, a gap, a sort out of order or a range outside the index: not served', () => {
  expect(unserved(runs, { webhook_id: '=', status: '=' }, newest)).toHaveLength(1); // user_id, org_id skipped
  expect(unserved(runs, { webhook_id: '=', user_id: '=', org_id: '=', status: '=' }, [['_id', -1]])).toHaveLength(1);
  expect(unserved(runs, { status: '=', started_at: ['$lt'] })).toHaveLength(1);
  expect(unserved(runs, { kind: '=' })).toHaveLength(1);
  expect(unserved(runs, {}, [])).toHaveLength(1); // a collection scan
  expect(unserved(runs, { claim: ['$ne'] })).toHaveLength(1);
});

test('an _id lookup is always served, whatever rides along', () => {
  expect(unserved(runs, { _id: '=', status: ['$in'], claim: ['$ne'] })).toEqual([]);
  expect(unserved(runs, { _id: ['$in'], rag_id: '=' })).toEqual([]);
  expect(unserved(runs, { _id: ['$gt'], rag_id: '=' })).toHaveLength(1); // a range of ids is no lookup
});

test('keyset pages: each branch of the $or is served', () => {
  const page = {
    status: '=',
    triggered_at: ['$lt'],
    $and: [{ $or: [{ triggered_at: ['$gt'] }, { triggered_at: '=', _id: ['$gt'] }] }],
  };
  expect(alternatives(page)).toHaveLength(2);
  expect(
    unserved(runs, page, [
      ['triggered_at', 1],
      ['_id', 1],
    ]),
  ).toEqual([]);
  expect(
    serves(runs[2]!, alternatives(page)[1]!, [
      ['triggered_at', 1],
      ['_id', 1],
    ]),
  ).toBe(true);
});
