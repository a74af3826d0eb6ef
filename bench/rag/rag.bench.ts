/**
 * Knowledge bases at scale. 1. The vector store alone (vectors.ts). 2. The rag service as a process (service.ts).
 * BENCH_QUICK=1 divides the default sizes by ten (each size can also be set on its own).
 */
import { machineLoad, out, runBench } from '../kit/bench-kit';
import { serviceBench } from './service';
import { vectorBench } from './vectors';

const QUICK = process.env.BENCH_QUICK === '1';
const size = (name: string, full: number) => Number(process.env[name] ?? (QUICK ? Math.ceil(full / 10) : full));

async function main(): Promise<void> {
  const vectors = size('BENCH_RAG_VECTORS', 100_000);
  const dim = Number(process.env.BENCH_RAG_DIM ?? 384);
  const queries = size('BENCH_RAG_QUERIES', 1_000);
  out(`rag bench: ${vectors} vectors of ${dim} dimensions, ${queries} queries; ${machineLoad()}`);
  await vectorBench({ vectors, dim, queries });
  const pages = size('BENCH_RAG_PAGES', 200);
  const chunks = size('BENCH_RAG_CHUNKS', 100_000);
  const runs = Number(process.env.BENCH_RAG_RUNS ?? 3);
  out(`rag service: ${pages}-page PDF × ${runs}, ${chunks} chunks, ${queries} queries`);
  await serviceBench({ pages, runs, chunks, queries });
}

runBench('rag', main);
