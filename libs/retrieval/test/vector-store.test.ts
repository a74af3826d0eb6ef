/** The LanceDB adapter against a real LanceDB in a temporary directory. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import {
  COMPACT_EVERY_WRITES,
  createVectorStores,
  MAX_VECTOR_SEARCH_K,
  VectorDimensionError,
  VectorInputError,
  type VectorStores,
} from '@platform/retrieval';
import { captureLogger } from '@platform/testing';

let dir: string;
let stores: VectorStores;
let log: ReturnType<typeof captureLogger>;
let ragSeq = 0;
/** A fresh 24-hex rag id per test. */
const newRag = () => `${(0x6650a0b1 + ++ragSeq).toString(16)}${'0'.repeat(16)}`.slice(0, 24);
const id = (n: number) => `c${n.toString().padStart(4, '0')}`;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'vectors-'));
  log = captureLogger();
  stores = createVectorStores({ uri: dir, logger: log.logger });
});
afterAll(async () => {
  await stores.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('LanceDB vector store', () => {
  it('ranks by cosine similarity, closest first, scores in [-1, 1] with 1 for the same direction', async () => {
    const store = stores.forProvider('lancedb');
    const rag = newRag();
    await store.upsert(rag, [
      { id: 'east', document_id: 'd1', vector: [1, 0, 0] },
      { id: 'north', document_id: 'd1', vector: [0, 1, 0] },
      { id: 'northeast', document_id: 'd2', vector: [1, 1, 0] },
      { id: 'west', document_id: 'd2', vector: [-3, 0, 0] },
    ]);
    const hits = await store.search(rag, [2, 0.2, 0], 4);
    expect(hits.map((h) => h.id)).toEqual(['east', 'northeast', 'north', 'west']);
    expect(hits[0]).toEqual({ id: 'east', document_id: 'd1', score: expect.closeTo(2 / Math.sqrt(4.04), 5) });
    expect(hits[3]!.score).toBeCloseTo(-2 / Math.sqrt(4.04), 5);
    // Length does not count, only direction: a long vector east is as close as a short one.
    expect((await store.search(rag, [100, 0, 0], 1))[0]).toEqual(
      expect.objectContaining({ id: 'east', score: expect.closeTo(1, 5) }),
    );
    expect(await store.search(rag, [1, 0, 0], 2)).toHaveLength(2);
    expect(await store.count(rag)).toBe(4);
  });

  it('an upsert replaces the rows with the same id (also twice in one batch: the last wins)', async () => {
    const store = stores.forProvider('lancedb');
    const rag = newRag();
    await store.upsert(rag, [
      { id: 'a', document_id: 'd1', vector: [1, 0] },
      { id: 'b', document_id: 'd1', vector: [0, 1] },
    ]);
    await store.upsert(rag, [
      { id: 'a', document_id: 'd9', vector: [0, 1] },
      { id: 'c', document_id: 'd2', vector: [1, 0] },
      { id: 'c', document_id: 'd3', vector: [1, 0.01] },
    ]);
    expect(await store.count(rag)).toBe(3);
    const hits = await store.search(rag, [0, 1], 3);
    expect(
      hits
        .slice(0, 2)
        .map((h) => h.id)
        .sort(),
    ).toEqual(['a', 'b']);
    expect(hits.find((h) => h.id === 'a')).toEqual({ id: 'a', document_id: 'd9', score: expect.closeTo(1, 5) });
    expect(hits.find((h) => h.id === 'c')?.document_id).toBe('d3');
  });

  it('deleteDocuments and deleteIds really remove: searches no longer return the rows, counts drop', async () => {
    const store = stores.forProvider('lancedb');
    const rag = newRag();
    const rows = Array.from({ length: 30 }, (_, i) => ({
      id: id(i),
      document_id: `doc${i % 3}`,
      vector: [1, i / 30, (i % 7) / 7],
    }));
    await store.upsert(rag, rows);
    expect(await store.deleteDocuments(rag, ['doc1', 'doc1', 'not-there'])).toBe(10);
    expect(await store.count(rag)).toBe(20);
    const all = await store.search(rag, [1, 0.5, 0.5], 100);
    expect(all).toHaveLength(20);
    expect(all.some((h) => h.document_id === 'doc1')).toBe(false);

    expect(await store.deleteIds(rag, [id(0), id(3), id(1)])).toBe(2); // id(1) was doc1's
    expect(await store.count(rag)).toBe(18);
    expect((await store.search(rag, [1, 0, 0], 100)).map((h) => h.id)).not.toContain(id(0));
    expect(await store.deleteIds(rag, [])).toBe(0);
    expect(await store.deleteDocuments(newRag(), ['doc0'])).toBe(0); // no table: nothing removed
  });

  it('reset removes every vector of the rag id only, and frees its dimension', async () => {
    const store = stores.forProvider('lancedb');
    const rag = newRag();
    const other = newRag();
    await store.upsert(rag, [{ id: 'a', document_id: 'd', vector: [1, 2, 3] }]);
    await store.upsert(other, [{ id: 'a', document_id: 'd', vector: [1, 2, 3] }]);
    await store.reset(rag);
    expect(await store.count(rag)).toBe(0);
    expect(await store.search(rag, [1, 2, 3], 5)).toEqual([]);
    expect(await store.count(other)).toBe(1);
    await store.reset(rag); // twice: nothing to remove, no error
    await store.upsert(rag, [{ id: 'b', document_id: 'd', vector: [1, 2, 3, 4, 5] }]);
    expect(await store.search(rag, [1, 2, 3, 4, 5], 5)).toEqual([
      { id: 'b', document_id: 'd', score: expect.closeTo(1, 5) },
    ]);
  });

  refusesBadInput();
  keepsEveryWriteUnderLoad();
});

/** Dimensions that do not match, unknown rag ids, and ids or vectors that could reach a filter. */
function refusesBadInput(): void {
  it('an upsert of another dimension is a VectorDimensionError (422); a query of another dimension finds nothing', async () => {
    const store = stores.forProvider('lancedb');
    const rag = newRag();
    await store.upsert(rag, [{ id: 'a', document_id: 'd', vector: [1, 0, 0] }]);
    const err = await store.upsert(rag, [{ id: 'b', document_id: 'd', vector: [1, 0] }]).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(VectorDimensionError);
    expect(err).toEqual(expect.objectContaining({ status: 422, expected: 3, received: 2 }));
    // Mixed dimensions in one batch: refused before anything is written.
    const mixed = [
      { id: 'c', document_id: 'd', vector: [1, 0, 0] },
      { id: 'e', document_id: 'd', vector: [1, 0, 0, 0] },
    ];
    await expect(store.upsert(rag, mixed)).rejects.toBeInstanceOf(VectorDimensionError);
    expect(await store.count(rag)).toBe(1);
    expect(await store.search(rag, [1, 0], 3)).toEqual([]);
    expect(log.lines.some((l) => l.includes('query vector of another dimension'))).toBe(true);
  });

  it('unknown rag ids answer empty; bad ids and vectors are refused before reaching a filter', async () => {
    const store = stores.forProvider('lancedb');
    const rag = newRag();
    expect(await store.search(rag, [1, 0], 5)).toEqual([]);
    expect(await store.count(rag)).toBe(0);
    expect(await store.deleteIds(rag, ['x'])).toBe(0);
    await expect(store.search('../../etc', [1], 1)).rejects.toBeInstanceOf(VectorInputError);
    await expect(store.count('6650a0b1000000000000000g')).rejects.toBeInstanceOf(VectorInputError);
    await store.upsert(rag, [{ id: 'keep', document_id: 'd', vector: [1, 0] }]);
    await expect(store.deleteIds(rag, ["x' OR '1'='1"])).rejects.toBeInstanceOf(VectorInputError);
    await expect(store.deleteDocuments(rag, ['d) OR (true'])).rejects.toBeInstanceOf(VectorInputError);
    await expect(store.deleteIds(rag, ['x'.repeat(129)])).rejects.toBeInstanceOf(VectorInputError);
    await expect(store.upsert(rag, [{ id: 'n', document_id: 'd', vector: [1, Number.NaN] }])).rejects.toBeInstanceOf(
      VectorInputError,
    );
    await expect(store.upsert(rag, [{ id: 'n', document_id: 'd', vector: [] }])).rejects.toBeInstanceOf(
      VectorInputError,
    );
    expect(await store.count(rag)).toBe(1);
    // A zero query vector has no direction; k of 0 asks for nothing; k above the limit is clamped.
    expect(await store.search(rag, [0, 0], 5)).toEqual([]);
    expect(await store.search(rag, [1, 0], 0)).toEqual([]);
    expect(await store.search(rag, [1, 0], MAX_VECTOR_SEARCH_K * 10)).toHaveLength(1);
  });
}

/** Many small writes, concurrent writes and a second replica on the same directory lose nothing. */
function keepsEveryWriteUnderLoad(): void {
  it('many small writes (compacted every COMPACT_EVERY_WRITES) keep every row and every delete', async () => {
    const store = stores.forProvider('lancedb');
    const rag = newRag();
    const writes = COMPACT_EVERY_WRITES * 2 + 3;
    for (let i = 0; i < writes; i++)
      await store.upsert(rag, [{ id: id(i), document_id: `doc${i % 2}`, vector: [1, i] }]);
    expect(await store.count(rag)).toBe(writes);
    expect(await store.deleteIds(rag, [id(writes - 1)])).toBe(1);
    expect(await store.deleteDocuments(rag, ['doc0'])).toBe(Math.ceil((writes - 1) / 2));
    expect(await store.count(rag)).toBe(Math.floor((writes - 1) / 2));
    expect((await store.search(rag, [0, 1], 1))[0]!.id).toBe(id(writes - 2));
    expect(log.lines.filter((l) => l.includes('compaction failed'))).toEqual([]);
  });

  it('concurrent upserts to one rag id from one process lose no rows', async () => {
    const store = stores.forProvider('lancedb');
    const rag = newRag();
    await Promise.all(
      Array.from({ length: 12 }, (_, b) =>
        store.upsert(
          rag,
          Array.from({ length: 25 }, (_, i) => ({ id: id(b * 25 + i), document_id: `doc${b}`, vector: [1, b, i] })),
        ),
      ),
    );
    expect(await store.count(rag)).toBe(300);
    expect(await store.deleteDocuments(rag, ['doc4'])).toBe(25);
  });

  it('two stores on the same directory (two replicas) see each other’s writes and deletes', async () => {
    const second = createVectorStores({ uri: dir, logger: log.logger });
    try {
      const a = stores.forProvider('lancedb');
      const b = second.forProvider('LanceDB');
      const rag = newRag();
      expect(await b.count(rag)).toBe(0);
      await a.upsert(rag, [{ id: 'x', document_id: 'd', vector: [0, 1] }]);
      expect(await b.search(rag, [0, 1], 1)).toEqual([{ id: 'x', document_id: 'd', score: expect.closeTo(1, 5) }]);
      await b.upsert(rag, [{ id: 'y', document_id: 'e', vector: [1, 0] }]);
      expect(await a.count(rag)).toBe(2);
      await expect(b.upsert(rag, [{ id: 'z', document_id: 'e', vector: [1, 0, 0] }])).rejects.toBeInstanceOf(
        VectorDimensionError,
      );
      expect(await b.deleteDocuments(rag, ['d'])).toBe(1);
      expect((await a.search(rag, [0, 1], 5)).map((h) => h.id)).toEqual(['y']);
      await a.reset(rag);
      expect(await b.count(rag)).toBe(0);
    } finally {
      await second.close();
    }
  });
}

describe('createVectorStores.forProvider', () => {
  it('LanceDB by any spelling; no name → the default silently; an unknown name → the default, logged once', async () => {
    const captured = captureLogger();
    const own = createVectorStores({ uri: dir, logger: captured.logger });
    try {
      for (const name of ['lancedb', 'LanceDB', ' lance_db ', 'lance-db', 'Lance DB', 'lance', null, undefined, ''])
        expect(own.forProvider(name).provider).toBe('lancedb');
      expect(captured.lines.filter((l) => l.includes('unknown vector_store_provider'))).toEqual([]);
      const qdrant = own.forProvider('qdrant');
      own.forProvider('Qdrant');
      expect(qdrant).toBe(own.default);
      const warnings = captured.lines.filter((l) => l.includes('unknown vector_store_provider'));
      expect(warnings).toHaveLength(1);
      expect(JSON.parse(warnings[0]!)).toEqual(
        expect.objectContaining({ vector_store_provider: 'qdrant', used: 'lancedb' }),
      );
      // The default adapter is a working store.
      const rag = newRag();
      await qdrant.upsert(rag, [{ id: 'a', document_id: 'd', vector: [1] }]);
      expect(await own.forProvider('weaviate').count(rag)).toBe(1);
    } finally {
      await own.close();
    }
  });
});
