/**
 * The vector store alone (libs/retrieval's LanceDB adapter, in a temporary directory): BENCH_RAG_VECTORS (100,000)
 * unit vectors of BENCH_RAG_DIM (384) dimensions upserted into one rag id, then BENCH_RAG_QUERIES (200) sequential
 * top-10 searches, p50/p99 beside the same searches as a brute-force scan of the same vectors held in memory (a
 * Float32Array, one dot product per vector: the floor of an exact search in this process), and whether both found the
 * same ten.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { createLogger } from '@platform/logger';
import { createVectorStores } from '@platform/retrieval';

import { out, percentile } from '../kit/bench-kit';

const TOP_K = 10;
const BATCH = 5_000;

/** A deterministic random source (mulberry32). */
export function seeded(seed: number): () => number {
  let a = seed | 0;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Vectors around 64 topics (as embeddings of real text cluster), each of unit length. */
export function vectorSource(dim: number, seed = 7): (i: number) => number[] {
  const rand = seeded(seed);
  const topics = Array.from({ length: 64 }, () => Array.from({ length: dim }, () => rand() * 2 - 1));
  return (i) => {
    const r = seeded(seed * 1_000_003 + i);
    const topic = topics[Math.floor(r() * topics.length)]!;
    const v = topic.map((x) => x + (r() * 2 - 1) * 0.8);
    const norm = Math.sqrt(v.reduce((s, x) => s + x * x, 0));
    return v.map((x) => x / norm);
  };
}

/** The ids of the top `k` rows of a brute-force scan (dot products of unit vectors = cosine similarity). */
function bruteForce(flat: Float32Array, dim: number, q: Float32Array, k: number): number[] {
  const n = flat.length / dim;
  const best: { i: number; s: number }[] = [];
  let floor = -Infinity;
  for (let i = 0; i < n; i++) {
    let s = 0;
    const base = i * dim;
    for (let d = 0; d < dim; d++) s += flat[base + d]! * q[d]!;
    if (best.length < k || s > floor) {
      best.push({ i, s });
      best.sort((a, b) => b.s - a.s);
      if (best.length > k) best.pop();
      floor = best[best.length - 1]!.s;
    }
  }
  return best.map((b) => b.i);
}

export async function vectorBench(opts: { vectors: number; dim: number; queries: number }): Promise<void> {
  const { vectors, dim, queries } = opts;
  const dir = mkdtempSync(join(tmpdir(), 'bench-vectors-'));
  const stores = createVectorStores({ uri: dir, logger: createLogger({ service: 'bench', level: 'warn' }) });
  const store = stores.forProvider('lancedb');
  const ragId = '6650a0b1c2d3e4f5a6b7c8d9';
  const vectorOf = vectorSource(dim);
  const flat = new Float32Array(vectors * dim);
  try {
    const t0 = performance.now();
    for (let i = 0; i < vectors; i += BATCH) {
      const rows = Array.from({ length: Math.min(BATCH, vectors - i) }, (_, k) => {
        const v = vectorOf(i + k);
        flat.set(v, (i + k) * dim);
        return { id: `c${i + k}`, document_id: `d${Math.floor((i + k) / 100)}`, vector: v };
      });
      await store.upsert(ragId, rows);
    }
    const upsertSecs = (performance.now() - t0) / 1000;
    out(
      `vector store: ${vectors} vectors of ${dim} dimensions upserted in ${upsertSecs.toFixed(1)} s = ${(vectors / upsertSecs).toFixed(0)} vectors/s (batches of ${BATCH}); count ${await store.count(ragId)}`,
    );

    const qs = Array.from({ length: queries + 1 }, (_, i) => vectorOf(10_000_000 + i));
    await store.search(ragId, qs[0]!, TOP_K); // the first search opens the files
    const lance: number[] = [];
    const found: string[][] = [];
    for (let i = 1; i <= queries; i++) {
      const t = performance.now();
      const hits = await store.search(ragId, qs[i]!, TOP_K);
      lance.push(performance.now() - t);
      found.push(hits.map((h) => h.id));
    }
    const brute: number[] = [];
    let same = 0;
    for (let i = 1; i <= queries; i++) {
      const q = Float32Array.from(qs[i]!);
      const t = performance.now();
      const ids = bruteForce(flat, dim, q, TOP_K);
      brute.push(performance.now() - t);
      const lanceIds = new Set(found[i - 1]);
      same += ids.filter((n) => lanceIds.has(`c${n}`)).length;
    }
    const p = (xs: number[], q: number) => percentile(xs, q).toFixed(1);
    out(
      `vector search (top ${TOP_K}, ${queries} sequential queries): LanceDB p50 ${p(lance, 50)} ms, p99 ${p(lance, 99)} ms; brute-force scan in memory p50 ${p(brute, 50)} ms, p99 ${p(brute, 99)} ms; LanceDB p99 / scan p99 = ${(percentile(lance, 99) / percentile(brute, 99)).toFixed(2)}; same top ${TOP_K} ${((100 * same) / (queries * TOP_K)).toFixed(1)}%`,
    );
  } finally {
    await stores.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
