/**
 * The local entity extractor alone (services/graph/src/pipeline/entities.ts), on the prose of the graph benchmark's
 * pages: BENCH_EXTRACT_PAGES (1,000) pages of 12 sentences (~1.5 KB), cut into chunks as training cuts them
 * (1,000 characters, 200 overlap), each chunk extracted once; prints milliseconds per page and pages per second on
 * one core (training's target is 0.1× the fetch-only rate, about 120 pages/s here: ~2 ms per page). Run by
 * `pnpm bench:graph` (before the service benchmark).
 */
import { chunkText } from '@platform/retrieval';

import { createLocalExtractor } from '../../services/graph/src/pipeline/entities';
import { machineLoad, out, percentile, runBench } from '../kit/bench-kit';
import { prose } from './prose';

const PAGES = Number(process.env.BENCH_EXTRACT_PAGES ?? 1_000);

runBench('graph/extract', async () => {
  const pages = Array.from({ length: PAGES }, (_, i) => chunkText(prose(i, 12), 1000, 200));
  const extractor = createLocalExtractor();
  // The word lists are built on first use: once per process, not per page.
  let t = performance.now();
  await extractor.extract(pages[0]![0]!);
  const firstMs = performance.now() - t;
  const perPage: number[] = [];
  let entities = 0;
  let relations = 0;
  const start = performance.now();
  for (const chunks of pages) {
    t = performance.now();
    for (const chunk of chunks) {
      const r = await extractor.extract(chunk);
      entities += r.entities.length;
      relations += r.relations.length;
    }
    perPage.push(performance.now() - t);
  }
  const totalMs = performance.now() - start;
  const chars = pages.reduce((n, chunks) => n + chunks.reduce((m, c) => m + c.length, 0), 0);
  out(`graph/extract: ${PAGES} pages, ${(chars / PAGES).toFixed(0)} chunk characters per page (${machineLoad()})`);
  out(`  first call (builds the word lists): ${firstMs.toFixed(1)} ms`);
  out(
    `  ${(totalMs / PAGES).toFixed(3)} ms per page (p50 ${percentile(perPage, 50).toFixed(3)}, p99 ${percentile(perPage, 99).toFixed(3)}), ${Math.round((PAGES * 1000) / totalMs)} pages/s on one core`,
  );
  out(
    `  ${(entities / PAGES).toFixed(1)} entities and ${(relations / PAGES).toFixed(1)} relations per page (per chunk, summed)`,
  );
});
