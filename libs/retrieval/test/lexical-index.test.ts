import {
  createLexicalIndex,
  createLiveIndexes,
  loadLexicalIndex,
  queryTerms,
  type IndexChange,
  type IndexedChunk,
  type IndexHead,
  type LiveIndexStore,
} from '../src';

const chunk = (id: string, text: string, over: Partial<IndexedChunk> = {}): IndexedChunk => ({
  id,
  url: `https://example.com/${id.split('-')[0]}`,
  title: '',
  ordinal: 0,
  text,
  embedding: null,
  ...over,
});

describe('lexical index', () => {
  it('ranks by BM25: the chunk naming the rare word more often first; function words neither match nor count', () => {
    const idx = createLexicalIndex();
    idx.add(chunk('a-0', 'The walrus sleeps. The walrus swims.'));
    idx.add(chunk('b-0', 'A walrus among seals and penguins.'));
    idx.add(chunk('c-0', 'Seals and penguins only.'));
    expect(idx.search('walrus', 5).map((h) => h.id)).toEqual(['a-0', 'b-0']);
    expect(idx.search('where is the', 5)).toEqual([]);
    expect(queryTerms('What is THE Walrus, the walrus?')).toEqual(['walrus']);
    const hit = idx.search('penguins', 1)[0]!; // the shorter chunk
    expect(hit).toMatchObject({ id: 'c-0', url: 'https://example.com/c', ordinal: 0 });
    expect(hit.score).toBeGreaterThan(0);
  });

  it('matches longer words by a prefix of five letters or more, below an exact match; titles weigh more', () => {
    const idx = createLexicalIndex();
    idx.add(chunk('a-0', 'Notes on engineering practice.'));
    idx.add(chunk('b-0', 'The engine room.'));
    idx.add(chunk('c-0', 'Unrelated text.', { title: 'Engine manual' }));
    const ranked = idx.search('engine', 5).map((h) => h.id);
    expect(ranked[0]).toBe('c-0'); // title match
    expect(ranked).toEqual(['c-0', 'b-0', 'a-0']); // exact before prefix
    expect(idx.search('eng', 5)).toEqual([]); // too short to be a prefix
  });

  it('takes pages in and out one at a time; removed chunks never come back; a chunk id added again replaces itself', () => {
    const idx = createLexicalIndex();
    idx.add(chunk('p1-0', 'alpha beta', { url: 'https://x/p1', ordinal: 0 }));
    idx.add(chunk('p1-1', 'alpha gamma', { url: 'https://x/p1', ordinal: 1 }));
    idx.add(chunk('p2-0', 'alpha delta', { url: 'https://x/p2' }));
    expect(idx.size).toBe(3);
    expect(idx.removeUrl('https://x/p1')).toBe(2);
    expect(idx.search('alpha', 10).map((h) => h.id)).toEqual(['p2-0']);
    expect(idx.remove('p2-0')).toBe(true);
    expect(idx.remove('p2-0')).toBe(false);
    idx.add(chunk('p3-0', 'omega'));
    idx.add(chunk('p3-0', 'sigma'));
    expect(idx.size).toBe(1);
    expect(idx.search('omega', 5)).toEqual([]);
    expect(idx.search('sigma', 5).map((h) => h.id)).toEqual(['p3-0']);
  });

  it('compacts after many removals and ranks exactly as a fresh index of the same chunks', () => {
    const idx = createLexicalIndex();
    const words = ['river', 'stone', 'cloud', 'ember', 'frost', 'grove'];
    const text = (i: number) => `${words[i % 6]} ${words[(i * 7) % 6]} ${words[(i * 3 + 1) % 6]} item${i}`;
    for (let i = 0; i < 3_000; i++) idx.add(chunk(`d${i}-0`, text(i), { url: `https://x/d${i}` }));
    for (let i = 0; i < 2_500; i++) idx.removeUrl(`https://x/d${i}`);
    const fresh = createLexicalIndex();
    for (let i = 2_500; i < 3_000; i++) fresh.add(chunk(`d${i}-0`, text(i), { url: `https://x/d${i}` }));
    expect(idx.size).toBe(500);
    for (const q of ['river', 'stone ember', 'item2999', 'cloud frost grove'])
      expect(idx.search(q, 10)).toEqual(fresh.search(q, 10));
  });

  it('serializes to a form that loads back to the same answers, vectors included, and keeps taking changes', () => {
    const idx = createLexicalIndex();
    idx.add(chunk('a-0', 'solar panels on roofs', { embedding: [1, 0, 0], title: 'Solar' }));
    idx.add(chunk('b-0', 'wind turbines at sea', { embedding: [0, 1, 0] }));
    idx.add(chunk('c-0', 'solar farms in deserts', { embedding: [0.7, 0.7, 0] }));
    idx.remove('c-0');
    const back = loadLexicalIndex(idx.serialize());
    expect(back.size).toBe(2);
    expect(back.vectors).toBe(2);
    for (const q of ['solar', 'turbines sea', 'roofs']) expect(back.search(q, 5)).toEqual(idx.search(q, 5));
    // Blended with a query vector: the wind chunk comes up by its vector although the words do not match it.
    expect(back.search('solar', 2, [0, 1, 0]).map((h) => h.id)).toEqual(['a-0', 'b-0']);
    back.add(chunk('d-0', 'solar kettles'));
    expect(back.search('kettles', 5).map((h) => h.id)).toEqual(['d-0']);
    expect(() => loadLexicalIndex(Buffer.from('not an index'))).toThrow();
  });

  it('breaks ties by chunk id, so every replica answers alike', () => {
    const idx = createLexicalIndex();
    for (const id of ['z-0', 'a-0', 'm-0']) idx.add(chunk(id, 'identical words here'));
    expect(idx.search('identical', 3).map((h) => h.id)).toEqual(['a-0', 'm-0', 'z-0']);
  });
});

/** A store in memory, counting what it is asked. */
function memoryStore() {
  const changes = new Map<number, IndexChange>();
  /** The chunks as stored (what a build reads). */
  const stored = new Map<string, IndexedChunk>();
  let head: IndexHead = { seq: 0, snapshot: null };
  const snapshots = new Map<string, Buffer>();
  const calls = { head: 0, changes: 0, snapshots: 0, allChunks: 0 };
  const store: LiveIndexStore = {
    head: () => (calls.head++, Promise.resolve(head)),
    changes: (_r, seqs) => (calls.changes++, Promise.resolve(seqs.map((s) => changes.get(s) ?? null))),
    readSnapshot: (_r, ref) => (calls.snapshots++, Promise.resolve(snapshots.get(ref.id) ?? null)),
    writeSnapshot(_r, seq, data) {
      const id = `s${seq}`;
      snapshots.set(id, data);
      head = { ...head, snapshot: { id, seq, parts: 1 } };
      return Promise.resolve();
    },
    allChunks: () => (calls.allChunks++, Promise.resolve([...stored.values()])),
    texts: (_r, ids) => Promise.resolve(new Map(ids.map((id) => [id, `text of ${id}`]))),
  };
  return {
    store,
    calls,
    append(c: Omit<IndexChange, 'seq'>) {
      const seq = head.seq + 1;
      if (c.reset) stored.clear();
      for (const [id, ch] of stored) if (c.removeUrls.includes(ch.url)) stored.delete(id);
      for (const ch of c.add) stored.set(ch.id, ch);
      changes.set(seq, { ...c, seq });
      head = { ...head, seq };
    },
    forget: (seq: number) => changes.delete(seq),
  };
}

describe('live indexes', () => {
  it('apply changes in order, snapshot every N, and load the snapshot when the changes behind it are gone', async () => {
    const mem = memoryStore();
    const live = createLiveIndexes({ store: mem.store, maxIndexes: 4, snapshotEvery: 3 });
    mem.append({ removeUrls: [], add: [chunk('a-0', 'first page about otters')] });
    expect((await live.search('g', 'otters', 5)).map((h) => [h.id, h.text])).toEqual([['a-0', 'text of a-0']]);
    // Texts of chunks that came as changes are at hand; others are read from the store.
    expect(mem.calls.allChunks).toBe(1); // no snapshot yet: built once
    mem.append({ removeUrls: ['https://example.com/a'], add: [chunk('a-0', 'first page about beavers')] });
    mem.append({ removeUrls: [], add: [chunk('b-0', 'second page about otters')] });
    expect((await live.search('g', 'otters', 5)).map((h) => h.id)).toEqual(['b-0']);
    await live.persist('g');
    // One right after the build (a graph without a snapshot gets one), one asked for.
    expect(live.stats.snapshotWrites).toBe(2);

    // A replica starting now loads that snapshot; the changes it covers may be gone.
    mem.forget(1);
    mem.forget(2);
    mem.append({ reset: true, removeUrls: [], add: [chunk('c-0', 'otters again')] });
    const other = createLiveIndexes({ store: mem.store, maxIndexes: 4 });
    expect((await other.search('g', 'otters', 5)).map((h) => h.id)).toEqual(['c-0']);
    expect(other.stats).toMatchObject({ builds: 0, snapshotLoads: 1, changesApplied: 1 });
    // One read of the head per question when nothing changed.
    const before = mem.calls.head;
    await other.search('g', 'otters', 5);
    expect(mem.calls.head - before).toBe(1);
  });
});
