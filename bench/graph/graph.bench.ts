/**
 * The graph service at scale, as processes (rag and graph services built by `pnpm build`):
 * 1. crawl + train: a local site of BENCH_GRAPH_PAGES (1,000) pages (a tree of 10 links per page, ~1.5 KB of prose
 *    each) trained through `POST /v4/knowledge_graph/website/?async=true`, pages per second beside the ceiling of
 *    the same site fetched by a plain client at the same concurrency (what the crawl could reach if training were free);
 * 2. retrieval: BENCH_GRAPH_CHUNKS (100,000) chunks (Zipf-distributed words of a 20,000-word vocabulary, 10 per
 *    page) seeded straight into one graph's collections with their facts as training stores them (the rule-based
 *    extractor's entities and relations in each page's facts document, each chunk's share in the chunk), but without
 *    the change log, as a graph trained before it (the first replica builds its index once from the chunks and
 *    snapshots it); then a fresh replica (a second process) answers its first question from the snapshot (timed),
 *    and BENCH_GRAPH_QUERIES (1,000) sequential `GET /v4/knowledge_graph/retrieve/` calls to it give p50/p99 beside
 *    the same process's `/healthz` (the HTTP floor).
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { resolve } from 'node:path';

import { createApiKeyRepository } from '@platform/auth';
import { connectMongo, type Connection } from '@platform/db';
import { indexLogModels } from '@platform/retrieval';
import { startServiceProcess, testInfra, uniqueName, type ServiceProcess } from '@platform/testing';

import { factsId, GRAPH_INDEX_LOG, graphModels } from '../../services/graph/src/graph/graph.model';
import { chunkFactsOf, extractFacts } from '../../services/graph/src/graph/page-trainer';
import { createLocalExtractor } from '../../services/graph/src/pipeline/entities';
import { machineLoad, out, percentile, runBench } from '../kit/bench-kit';
import { prose, random, VOCABULARY } from './prose';

const PAGES = Number(process.env.BENCH_GRAPH_PAGES ?? 1_000);
const CHUNKS = Number(process.env.BENCH_GRAPH_CHUNKS ?? 100_000);
const QUERIES = Number(process.env.BENCH_GRAPH_QUERIES ?? 1_000);
const CONCURRENCY = 4;
const SECRET = 'bench-graph-internal-secret-0123456789abcdef';
const DIST = resolve(__dirname, '../../../../services'); // from bench/dist/bench/graph

function startSite(): Promise<Server> {
  const server = createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    if (path === '/robots.txt')
      return res.writeHead(200, { 'content-type': 'text/plain' }).end('User-agent: *\nAllow: /\n');
    const n = path === '/' ? 0 : Number(path.slice(3));
    if (!Number.isInteger(n) || n < 0 || n >= PAGES) return res.writeHead(404).end();
    const links = Array.from({ length: 10 }, (_, k) => n * 10 + k + 1)
      .filter((c) => c < PAGES)
      .map((c) => `<a href="/p/${c}">page ${c}</a>`)
      .join(' ');
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end(
      `<!doctype html><html><head><title>Page ${n}</title></head><body><nav>menu</nav><main><p>${prose(n, 12)}</p>${links}</main></body></html>`,
    );
  });
  return new Promise((r) => server.listen(0, '127.0.0.1', () => r(server)));
}

/** The ceiling of the crawl: every page of the site fetched (no parsing, no training) at the crawl's concurrency. */
async function fetchCeiling(base: string): Promise<number> {
  const started = performance.now();
  let next = 0;
  const worker = async () => {
    while (next < PAGES) {
      const n = next++;
      await (await fetch(n === 0 ? `${base}/` : `${base}/p/${n}`)).text();
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  return PAGES / ((performance.now() - started) / 1000);
}

async function timed(url: string, key: string): Promise<number> {
  const t0 = performance.now();
  const res = await fetch(url, { headers: { 'x-api-key': key } });
  await res.text();
  if (res.status !== 200) throw new Error(`${url} answered ${res.status}`);
  return performance.now() - t0;
}

/** A knowledge base of the rag service (`POST /v3/rag/`) whose store is the graph; returns its id. */
async function newGraphRag(ragUrl: string, key: string, collectionName: string): Promise<string> {
  const created = await fetch(`${ragUrl}/v3/rag/`, {
    method: 'POST',
    headers: { 'x-api-key': key, 'content-type': 'application/json' },
    body: JSON.stringify({
      llm_credential_id: 'x',
      embedding_credential_id: 'x',
      vector_db_credential_id: 'x',
      collection_name: collectionName,
      llm_model: 'm',
      embedding_model: 'e',
      vector_store_provider: 'neo4j',
    }),
  });
  return ((await created.json()) as { id: string }).id;
}

/** The site crawled and trained through the graph service, beside the ceiling of fetching it alone. */
async function crawlAndTrain(graphUrl: string, siteUrl: string, key: string, ragId: string): Promise<void> {
  const ceiling = await fetchCeiling(siteUrl);
  const t0 = performance.now();
  const queued = await fetch(`${graphUrl}/v4/knowledge_graph/website/?rag_id=${ragId}&async=true`, {
    method: 'POST',
    headers: { 'x-api-key': key, 'content-type': 'application/json' },
    body: JSON.stringify({ urls: [`${siteUrl}/`], max_crawl_pages: PAGES, max_crawl_depth: 10 }),
  });
  const taskId = ((await queued.json()) as { task_id: string }).task_id;
  let task: { status: string; pages_trained: number } = { status: 'queued', pages_trained: 0 };
  while (task.status === 'queued' || task.status === 'running') {
    await new Promise((r) => setTimeout(r, 250));
    task = (await (
      await fetch(`${graphUrl}/v4/knowledge_graph/task/${taskId}`, { headers: { 'x-api-key': key } })
    ).json()) as typeof task;
  }
  const secs = (performance.now() - t0) / 1000;
  const rate = task.pages_trained / secs;
  out(
    `crawl+train: ${task.status}, ${task.pages_trained} pages in ${secs.toFixed(1)} s = ${rate.toFixed(1)} pages/s; fetch-only ceiling ${ceiling.toFixed(0)} pages/s; ratio ${(rate / ceiling).toFixed(3)}`,
  );
}

/** `CHUNKS` chunks of graph `bigId` seeded straight into its collections, with their facts as training stores them. */
async function seedChunks(graphConn: Connection, bigId: string, siteUrl: string): Promise<void> {
  const m = graphModels(graphConn);
  const BATCH = 5_000;
  const extractor = createLocalExtractor();
  for (let i = 0; i < CHUNKS; i += BATCH) {
    const docs = Array.from({ length: Math.min(BATCH, CHUNKS - i) }, (_, k) => {
      const n = i + k;
      return {
        _id: `c${n}`,
        rag_id: bigId,
        url: `${siteUrl}/doc/${Math.floor(n / 10)}`,
        title: `Doc ${Math.floor(n / 10)}`,
        ordinal: n % 10,
        text: prose(n, 4),
        embedding: null,
      };
    });
    // Each page's facts as training stores them: the rule-based extractor's entities and relations of its chunks
    // in the page's facts document, and what each chunk states in the chunk.
    const byUrl = new Map<string, typeof docs>();
    for (const d of docs) byUrl.set(d.url, [...(byUrl.get(d.url) ?? []), d]);
    const facts = await Promise.all(
      [...byUrl].map(async ([url, chunks]) => {
        const page = {
          chunks: chunks.map((c) => ({ id: c._id, text: c.text })),
          ...(await extractFacts(
            chunks.map((c) => ({ id: c._id, text: c.text })),
            extractor,
          )),
        };
        const stated = chunkFactsOf(page);
        for (const c of chunks) Object.assign(c, { stated: stated.get(c._id) });
        return { _id: factsId(bigId, url), rag_id: bigId, url, entities: page.entities, relations: page.relations };
      }),
    );
    await m.Chunk.insertMany(docs, { ordered: false });
    await m.Facts.insertMany(facts, { ordered: false });
  }
}

/**
 * Retrieval over the seeded graph: the first query builds its index (timed) and snapshots it, a fresh replica
 * started by `startFresh` answers from the snapshot, then `QUERIES` queries beside the same process's `/healthz`.
 */
async function retrieval(
  graphConn: Connection,
  graphUrl: string,
  key: string,
  bigId: string,
  startFresh: () => Promise<ServiceProcess>,
): Promise<void> {
  // A question as a user asks it: function words (not indexed), and three content words of middling frequency.
  const qrand = random('queries');
  const content = () => VOCABULARY.words[50 + Math.floor(qrand() * 2_000)]!;
  const queries = Array.from(
    { length: QUERIES + 1 },
    () => `what is the ${content()} of the ${content()} and ${content()}?`,
  );
  const query = (i: number) => queries[i]!;
  const retrieveUrl = (base: string, i: number) =>
    `${base}/v4/knowledge_graph/retrieve/?rag_id=${bigId}&top_k=5&query=${encodeURIComponent(query(i))}`;
  const build = await timed(retrieveUrl(graphUrl, 0), key);
  // The replica that built the index snapshots it in the background.
  const s0 = performance.now();
  while (!(await indexLogModels(graphConn, GRAPH_INDEX_LOG).Head.findOne({ _id: bigId }).lean())?.snapshot_id) {
    if (performance.now() - s0 > 120_000) throw new Error('no snapshot of the index within 120 s');
    await new Promise((r) => setTimeout(r, 100));
  }
  const snapshotMs = performance.now() - s0;
  const fresh = await startFresh();
  const first = await timed(retrieveUrl(fresh.url, 0), key);
  const lat: number[] = [];
  for (let i = 1; i <= QUERIES; i++) lat.push(await timed(retrieveUrl(fresh.url, i), key));
  const floor: number[] = [];
  for (let i = 0; i < QUERIES; i++) floor.push(await timed(`${fresh.url}/healthz`, key));
  const p = (xs: number[], q: number) => percentile(xs, q).toFixed(1);
  out(
    `retrieval over ${CHUNKS} chunks: one-time build of a graph seeded without the change log ${build.toFixed(0)} ms (snapshot written ${snapshotMs.toFixed(0)} ms later)`,
  );
  out(
    `fresh replica: first query (snapshot loaded) ${first.toFixed(0)} ms; then p50 ${p(lat, 50)} ms, p99 ${p(lat, 99)} ms`,
  );
  out(
    `HTTP floor (/healthz, same process): p50 ${p(floor, 50)} ms, p99 ${p(floor, 99)} ms; retrieval p99 / floor p99 = ${(percentile(lat, 99) / percentile(floor, 99)).toFixed(1)}`,
  );
}

async function main(): Promise<void> {
  const graphDb = uniqueName('bench_graph');
  const ragDb = uniqueName('bench_graphrag');
  const authDb = `${graphDb}_auth`;
  const authConn = await connectMongo({ uri: testInfra.mongoUri, dbName: authDb });
  const graphConn = await connectMongo({ uri: testInfra.mongoUri, dbName: graphDb });
  const keys = createApiKeyRepository(authConn);
  await keys.init();
  const { key } = await keys.create({ user_id: 'bench-user', org_id: 'bench-org' }, 'bench');
  const site = await startSite();
  const siteUrl = `http://127.0.0.1:${(site.address() as AddressInfo).port}`;
  const common = {
    MONGODB_URI: testInfra.mongoUri,
    AUTH_DB: authDb,
    LOG_LEVEL: 'warn',
    INTERNAL_SERVICE_SECRET: SECRET,
    REDIS_URL: testInfra.redisUrl,
  };
  let rag: ServiceProcess | undefined;
  let graph: ServiceProcess | undefined;
  let fresh: ServiceProcess | undefined;
  try {
    rag = await startServiceProcess({
      script: `${DIST}/rag/dist/main.js`,
      env: { ...common, MONGODB_DB: ragDb },
      readyPath: '/healthz',
    });
    const graphEnv = {
      ...common,
      MONGODB_DB: graphDb,
      RAG_URL: rag.url,
      QUEUE_PREFIX: uniqueName('bq'),
      OUTBOUND_ALLOW_HOSTS: new URL(siteUrl).host,
      CRAWL_CONCURRENCY: String(CONCURRENCY),
    };
    const startGraph = () =>
      startServiceProcess({
        script: `${DIST}/graph/dist/main.js`,
        env: graphEnv,
        readyPath: '/healthz',
        timeoutMs: 30_000,
      });
    graph = await startGraph();
    const ragId = await newGraphRag(rag.url, key, 'bench');
    out(`graph bench: ${PAGES} pages, ${CHUNKS} chunks, ${QUERIES} queries; ${machineLoad()}`);

    // 1. Crawl and train.
    await crawlAndTrain(graph.url, siteUrl, key, ragId);

    // 2. Retrieval over CHUNKS chunks seeded straight into a second graph of the same owner.
    const bigId = await newGraphRag(rag.url, key, 'bench_big');
    await seedChunks(graphConn, bigId, siteUrl);
    await retrieval(graphConn, graph.url, key, bigId, async () => (fresh = await startGraph()));
  } finally {
    await fresh?.stop();
    await graph?.stop();
    await rag?.stop();
    site.close();
    await graphConn.dropDatabase().catch(() => undefined);
    await graphConn
      .useDb(ragDb)
      .dropDatabase()
      .catch(() => undefined);
    await authConn.dropDatabase().catch(() => undefined);
    await graphConn.close();
    await authConn.close();
  }
}

runBench('graph', main);
