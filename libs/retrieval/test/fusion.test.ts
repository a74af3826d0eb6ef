import { fuseRankings, LEXICAL_RELEVANCE_HALF, lexicalRelevance, RRF_K } from '@platform/retrieval';

const rrf = (...ranks: number[]) => ranks.reduce((s, r) => s + 1 / (RRF_K + r), 0);

describe('fuseRankings (reciprocal rank fusion)', () => {
  it('scores each item by the sum of 1/(60 + rank) over the lists it is in; found by both beats found by one', () => {
    const bm25 = [
      { id: 'a', score: 12.5 },
      { id: 'b', score: 7.1 },
      { id: 'c', score: 0.4 },
    ];
    const vector = [
      { id: 'c', score: 0.91 },
      { id: 'd', score: 0.9 },
      { id: 'b', score: 0.2 },
    ];
    const fused = fuseRankings([bm25, vector]);
    expect(fused.map((f) => f.id)).toEqual(['c', 'b', 'a', 'd']);
    expect(fused[0]!.score).toBeCloseTo(rrf(3, 1), 12);
    expect(fused[1]!.score).toBeCloseTo(rrf(2, 3), 12);
    expect(fused[2]!.score).toBeCloseTo(rrf(1), 12);
    expect(fused[3]!.score).toBeCloseTo(rrf(2), 12);
  });

  it('orders each list by its scores, whatever order it came in; score scales do not matter', () => {
    const shuffled = [
      { id: 'low', score: 1 },
      { id: 'high', score: 1e6 },
    ];
    expect(fuseRankings([shuffled]).map((f) => f.id)).toEqual(['high', 'low']);
    const scaled = fuseRankings([shuffled.map((x) => ({ ...x, score: x.score / 1e9 }))]);
    expect(scaled).toEqual(fuseRankings([shuffled]));
  });

  it('disjoint lists: items at the same rank tie, ordered by id; each list interleaves with the other', () => {
    const fused = fuseRankings([
      [
        { id: 'x1', score: 3 },
        { id: 'x2', score: 2 },
      ],
      [
        { id: 'a1', score: 0.9 },
        { id: 'a2', score: 0.5 },
        { id: 'a3', score: 0.1 },
      ],
    ]);
    expect(fused.map((f) => f.id)).toEqual(['a1', 'x1', 'a2', 'x2', 'a3']);
    expect(fused[0]!.score).toBe(fused[1]!.score);
    expect(fused[4]!.score).toBeCloseTo(rrf(3), 12);
  });

  breaksTiesStably();
  appliesOptionsAndSkipsBadEntries();
});

/** Equal scores: a shared rank within a list; equal fused scores by the better single rank, then the id. */
function breaksTiesStably(): void {
  it('equal scores in a list share a rank, so the order a store returned them in changes nothing', () => {
    const tied = [
      { id: 'q', score: 0.5 },
      { id: 'p', score: 0.5 },
      { id: 'r', score: 0.1 },
    ];
    const fused = fuseRankings([tied]);
    expect(fused).toEqual([
      { id: 'p', score: rrf(1) },
      { id: 'q', score: rrf(1) },
      { id: 'r', score: rrf(3) },
    ]);
    expect(fuseRankings([[...tied].reverse()])).toEqual(fused);
  });

  it('equal fused scores: the item with the better single rank first, then the id', () => {
    // With k = 0 and weights 1 and 2: z (rank 1 of list one) and a (rank 2 of list two) both score exactly 1.
    const byRank = fuseRankings(
      [
        [{ id: 'z', score: 5 }],
        [
          { id: 'm', score: 0.9 },
          { id: 'a', score: 0.8 },
        ],
      ],
      { k: 0, weights: [1, 2] },
    );
    expect(byRank).toEqual([
      { id: 'm', score: 2 },
      { id: 'z', score: 1 },
      { id: 'a', score: 1 },
    ]);
    // Same sum and same best rank (rank 1 of one list each): by id.
    const byId = fuseRankings([
      [
        { id: 'p', score: 9 },
        { id: 'z', score: 1 },
      ],
      [
        { id: 'o', score: 9 },
        { id: 'y', score: 1 },
      ],
    ]);
    expect(byId.map((f) => f.id)).toEqual(['o', 'p', 'y', 'z']);
  });
}

/** Weights, k and limit; repeated ids and non-finite scores in a list; empty input. */
function appliesOptionsAndSkipsBadEntries(): void {
  it('weights, k, limit; an id twice in one list counts once with its best score; non-finite scores are skipped', () => {
    const lists = [
      [
        { id: 'a', score: 1 },
        { id: 'b', score: 0.5 },
      ],
      [
        { id: 'b', score: 1 },
        { id: 'a', score: 0.5 },
      ],
    ];
    expect(fuseRankings(lists, { weights: [1, 2] }).map((f) => f.id)).toEqual(['b', 'a']);
    expect(fuseRankings(lists, { k: 0 })[0]!.score).toBeCloseTo(1 + 1 / 2, 12);
    expect(fuseRankings(lists, { limit: 1 })).toHaveLength(1);
    expect(fuseRankings(lists, { limit: 0 })).toEqual([]);
    const repeated = fuseRankings([
      [
        { id: 'a', score: 0.1 },
        { id: 'b', score: 0.5 },
        { id: 'a', score: 0.9 },
        { id: 'c', score: Number.NaN },
      ],
    ]);
    expect(repeated).toEqual([
      { id: 'a', score: rrf(1) },
      { id: 'b', score: rrf(2) },
    ]);
    expect(fuseRankings([])).toEqual([]);
    expect(fuseRankings([[], []])).toEqual([]);
  });
}

it('lexicalRelevance maps BM25 scores into 0–1, in the same order, 0.5 at LEXICAL_RELEVANCE_HALF', () => {
  const scores = [0, 0.2, 0.67, LEXICAL_RELEVANCE_HALF, 3, 12, 80];
  const relevance = scores.map(lexicalRelevance);
  expect(relevance[0]).toBe(0);
  expect(lexicalRelevance(LEXICAL_RELEVANCE_HALF)).toBe(0.5);
  expect([...relevance].sort((a, b) => a - b)).toEqual(relevance);
  for (const r of relevance) expect(r).toBeLessThan(1);
  expect(lexicalRelevance(-1)).toBe(0);
});
