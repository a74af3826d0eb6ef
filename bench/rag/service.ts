/**
 * The rag service as a process (services built by `pnpm build`), with the OCR and graph services beside it:
 * 1. ingest: a text PDF of BENCH_RAG_PAGES (200) pages trained through `POST /v3/train/pdf/`, pages/s (median of
 *    BENCH_RAG_RUNS, 3) beside the OCR service's `POST /extract` alone on the same file (the extractor's ceiling);
 * 2. retrieval: BENCH_RAG_CHUNKS (100,000) chunks trained through `POST /v3/train/text/` (100 documents of 10
 *    chunks per request), then BENCH_RAG_QUERIES (1,000) sequential `GET /v3/rag/{id}/retrieve/`, p50/p99 beside
 *    the same process's `/healthz` (the HTTP floor). No embedding credential: lexical (BM25) search of the
 *    documents plus the knowledge graph's (empty) answer; the vector store's own figures are vectors.ts's.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

import {
  createTestDatabases,
  startServiceProcess,
  testInfra,
  uniqueName,
  type ServiceProcess,
} from '@platform/testing';

import { textPdf } from '../../services/ocr/test/support/text-fixtures';
import { out, percentile } from '../kit/bench-kit';
import { zipfVocabulary } from '../kit/zipf';
import { seeded } from './vectors';

const SECRET = 'bench-rag-internal-secret-0123456789abcdef';
const ROOT = resolve(__dirname, '../../../..'); // from bench/dist/bench/rag
const ORG = 'bench-org';
const CHUNK_SIZE = 1000;
const ITEMS_PER_REQUEST = 100;
const CHUNKS_PER_ITEM = 10;

const LINE = 'The committee reviewed the annual budget and approved funding for new equipment';
const pageLines = (p: number) => Array.from({ length: 40 }, (_, i) => `${LINE} (page ${p}, line ${i + 1})`);

/** Made-up words (a vocabulary of 5,000), drawn with Zipf's law as natural text does. */
const SYLLABLES = 'ka lo mi ne ru sa te vi zo pa de fi gu ho ja ke la mo nu pi ra se ti vu wa'.split(' ');
const VOCABULARY = zipfVocabulary(5_000, SYLLABLES, 'ro');
/** A paragraph of just under CHUNK_SIZE characters: one chunk. */
function paragraph(rand: () => number): string {
  const words: string[] = [];
  let length = 0;
  while (length < CHUNK_SIZE - 40) {
    const w = VOCABULARY.draw(rand);
    words.push(w);
    length += w.length + 1;
  }
  return `${words.join(' ')}.`;
}

async function call(url: string, key: string, init: RequestInit = {}): Promise<{ ms: number; body: unknown }> {
  const t = performance.now();
  const res = await fetch(url, { ...init, headers: { 'x-api-key': key, ...(init.headers ?? {}) } });
  const text = await res.text();
  const ms = performance.now() - t;
  if (res.status < 200 || res.status >= 300)
    throw new Error(`${init.method ?? 'GET'} ${url} answered ${res.status}: ${text.slice(0, 300)}`);
  return { ms, body: text ? (JSON.parse(text) as unknown) : null };
}

const pdfForm = (pdf: Uint8Array) => {
  const form = new FormData();
  form.append('file', new Blob([pdf], { type: 'application/pdf' }), 'bench.pdf');
  return form;
};

const median = (xs: number[]) => percentile(xs, 50);

const json = (body: unknown): RequestInit => ({
  method: 'POST',
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify(body),
});

/** What the services are started with: the shared variables, and each one's database and folders. */
interface ServiceSetup {
  common: Record<string, string>;
  ragDb: string;
  graphDb: string;
  ocrDb: string;
  vectorDir: string;
  uploadDir: string;
  ocrUploadDir: string;
}

/** Starts the OCR, graph and rag services; each is handed to `started` as it runs. */
async function startServices(s: ServiceSetup, started: ServiceProcess[]) {
  const { common, ragDb, graphDb, ocrDb, vectorDir, uploadDir, ocrUploadDir } = s;
  const ocr = await startServiceProcess({
    script: resolve(ROOT, 'services/ocr/dist/main.js'),
    env: { ...common, MONGODB_DB: ocrDb, UPLOAD_DIR: ocrUploadDir },
  });
  started.push(ocr);
  // The rag service's port is needed by the graph service and the other way round: the graph starts on its own
  // first (it reaches rag only when it trains), then rag with the graph's URL.
  const graph = await startServiceProcess({
    script: resolve(ROOT, 'services/graph/dist/main.js'),
    env: { ...common, MONGODB_DB: graphDb, QUEUE_PREFIX: uniqueName('bq') },
    readyPath: '/healthz',
    timeoutMs: 30_000,
  });
  started.push(graph);
  const rag = await startServiceProcess({
    script: resolve(ROOT, 'services/rag/dist/main.js'),
    env: {
      ...common,
      MONGODB_DB: ragDb,
      OCR_URL: ocr.url,
      GRAPH_URL: graph.url,
      VECTOR_STORE_URI: vectorDir,
      UPLOAD_DIR: uploadDir,
    },
    readyPath: '/healthz',
    timeoutMs: 30_000,
  });
  started.push(rag);
  return { ocr, rag };
}

/** Pages per second of `POST /v3/train/pdf/` (median of `opts.runs`) beside the OCR service's extraction alone. */
async function ingest(
  ocrUrl: string,
  ragUrl: string,
  key: string,
  newRag: (name: string) => Promise<string>,
  opts: { pages: number; runs: number },
): Promise<void> {
  const pdf = await textPdf(Array.from({ length: opts.pages }, (_, i) => pageLines(i + 1)));
  const warm = await textPdf([['warm-up']]);
  await call(`${ocrUrl}/extract?organization_id=${ORG}`, key, { method: 'POST', body: pdfForm(warm) });
  const ingestRag = await newRag('bench_ingest');
  const trainPdf = `${ragUrl}/v3/train/pdf/?rag_id=${ingestRag}`;
  await call(trainPdf, key, { method: 'POST', body: pdfForm(warm) });
  const extractSecs: number[] = [];
  const trainSecs: number[] = [];
  for (let i = 0; i < opts.runs; i++) {
    extractSecs.push(
      (await call(`${ocrUrl}/extract?organization_id=${ORG}`, key, { method: 'POST', body: pdfForm(pdf) })).ms / 1000,
    );
    trainSecs.push((await call(trainPdf, key, { method: 'POST', body: pdfForm(pdf) })).ms / 1000);
  }
  const trainRate = opts.pages / median(trainSecs);
  const extractRate = opts.pages / median(extractSecs);
  out(
    `ingest: ${opts.pages}-page text PDF (${(pdf.length / 1024).toFixed(0)} KiB), median of ${opts.runs}: POST /v3/train/pdf/ ${trainRate.toFixed(1)} pages/s; OCR extraction alone ${extractRate.toFixed(1)} pages/s; ratio ${(trainRate / extractRate).toFixed(2)}`,
  );
}

/** `opts.chunks` chunks trained as text, then `opts.queries` sequential queries beside the process's `/healthz`. */
async function retrieval(
  ragUrl: string,
  key: string,
  newRag: (name: string) => Promise<string>,
  opts: { chunks: number; queries: number },
): Promise<void> {
  const bigRag = await newRag('bench_retrieve');
  const rand = seeded(42);
  const items = Math.ceil(opts.chunks / CHUNKS_PER_ITEM);
  const t0 = performance.now();
  for (let i = 0; i < items; i += ITEMS_PER_REQUEST) {
    const data = Array.from({ length: Math.min(ITEMS_PER_REQUEST, items - i) }, (_, k) => ({
      text: Array.from({ length: CHUNKS_PER_ITEM }, () => paragraph(rand)).join('\n\n'),
      source: `doc-${i + k}.txt`,
    }));
    await call(
      `${ragUrl}/v3/train/text/?rag_id=${bigRag}`,
      key,
      json({ data, chunk_size: CHUNK_SIZE, chunk_overlap: 0 }),
    );
  }
  const trainTextSecs = (performance.now() - t0) / 1000;
  out(
    `train text: ${items} documents (${opts.chunks} chunks of ~${CHUNK_SIZE} characters) in ${trainTextSecs.toFixed(1)} s = ${(opts.chunks / trainTextSecs).toFixed(0)} chunks/s`,
  );
  const qrand = seeded(7);
  const content = () => VOCABULARY.words[50 + Math.floor(qrand() * 2_000)]!;
  const retrieveUrl = () =>
    `${ragUrl}/v3/rag/${bigRag}/retrieve/?top_k=5&query=${encodeURIComponent(`what is the ${content()} of the ${content()} and ${content()}?`)}`;
  const first = (await call(retrieveUrl(), key)).ms;
  const lat: number[] = [];
  for (let i = 0; i < opts.queries; i++) lat.push((await call(retrieveUrl(), key)).ms);
  const floor: number[] = [];
  for (let i = 0; i < opts.queries; i++) floor.push((await call(`${ragUrl}/healthz`, key)).ms);
  const p = (xs: number[], q: number) => percentile(xs, q).toFixed(1);
  out(
    `retrieval over ${opts.chunks} chunks (${opts.queries} sequential queries, top 5): first ${first.toFixed(0)} ms; then p50 ${p(lat, 50)} ms, p99 ${p(lat, 99)} ms; /healthz p50 ${p(floor, 50)} ms, p99 ${p(floor, 99)} ms; retrieval p99 / floor p99 = ${(percentile(lat, 99) / percentile(floor, 99)).toFixed(1)}`,
  );
}

export async function serviceBench(opts: {
  pages: number;
  runs: number;
  chunks: number;
  queries: number;
}): Promise<void> {
  const dbs = await createTestDatabases('bench_rag');
  const dirs = ['vectors', 'uploads', 'ocr-uploads'].map((d) => mkdtempSync(join(tmpdir(), `bench-rag-${d}-`)));
  const [vectorDir, uploadDir, ocrUploadDir] = dirs as [string, string, string];
  const common = {
    MONGODB_URI: testInfra.mongoUri,
    AUTH_DB: dbs.authDb,
    LOG_LEVEL: 'error',
    INTERNAL_SERVICE_SECRET: SECRET,
    REDIS_URL: testInfra.redisUrl,
  };
  const graphDb = uniqueName('bench_rag_graph');
  const ocrDb = uniqueName('bench_rag_ocr');
  const started: ServiceProcess[] = [];
  try {
    const { ocr, rag } = await startServices(
      { common, ragDb: dbs.conn.name, graphDb, ocrDb, vectorDir, uploadDir, ocrUploadDir },
      started,
    );
    const key = await dbs.mintKey({ user_id: 'bench-user', org_id: ORG });
    const newRag = async (name: string) =>
      (
        (
          await call(
            `${rag.url}/v3/rag/`,
            key,
            json({
              llm_credential_id: 'x',
              embedding_credential_id: 'x',
              vector_db_credential_id: 'x',
              collection_name: name,
              llm_model: 'm',
              embedding_model: 'e',
              vector_store_provider: 'lancedb',
            }),
          )
        ).body as { id: string }
      ).id;

    // 1. Ingest: the PDF through the rag service beside the extractor alone.
    await ingest(ocr.url, rag.url, key, newRag, opts);

    // 2. Retrieval over opts.chunks chunks trained as text.
    await retrieval(rag.url, key, newRag, opts);
  } finally {
    for (const s of started.reverse()) await s.stop().catch(() => undefined);
    for (const name of [graphDb, ocrDb])
      await dbs.conn
        .useDb(name)
        .dropDatabase()
        .catch(() => undefined);
    await dbs.cleanup();
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  }
}
