import { createHash } from 'node:crypto';

import { chunkText } from '@platform/retrieval';

import type { CrawledPage } from '../crawl/crawl.types';
import type { EntityExtractor } from '../pipeline/entities';
import type { Embedder } from '../providers/models';
import type { ChunkFacts } from './graph.model';
import type { TrainedPage } from './graph.types';

/** A chunk's id: stable for (graph, page, position), so training a page again rewrites the same ids. */
const chunkId = (ragId: string, url: string, ordinal: number) =>
  createHash('sha256').update(`${ragId}\u0000${url}\u0000${ordinal}`).digest('hex').slice(0, 32);

/** The pipeline of one page: main text → chunks → entities and relations (weighted, with their chunks) → embeddings. */
export async function trainPage(
  ragId: string,
  page: CrawledPage,
  opts: { chunkSize: number; chunkOverlap: number; extractor: EntityExtractor; embed?: Embedder | null },
): Promise<TrainedPage> {
  const texts = chunkText(page.text, opts.chunkSize, opts.chunkOverlap);
  const embeddings = opts.embed && texts.length > 0 ? await opts.embed(texts) : null;
  const chunks = texts.map((text, ordinal) => ({
    id: chunkId(ragId, page.url, ordinal),
    ordinal,
    text,
    embedding: embeddings?.[ordinal] ?? null,
  }));
  return { url: page.url, title: page.title, chunks, ...(await extractFacts(chunks, opts.extractor)) };
}

/** The entities and relations of a page's chunks, weighted by the chunks that state them, with those chunks' ids. */
export async function extractFacts(
  chunks: { id: string; text: string }[],
  extractor: EntityExtractor,
): Promise<Pick<TrainedPage, 'entities' | 'relations'>> {
  const entities = new Map<string, TrainedPage['entities'][number]>();
  const relations = new Map<string, TrainedPage['relations'][number]>();
  for (const chunk of chunks) {
    const found = await extractor.extract(chunk.text);
    for (const e of found.entities) {
      const row = entities.get(e.key) ?? { key: e.key, name: e.name, type: e.type, weight: 0, chunk_ids: [] };
      row.weight += 1;
      if (!row.chunk_ids.includes(chunk.id)) row.chunk_ids.push(chunk.id);
      entities.set(e.key, row);
    }
    for (const r of found.relations) {
      if (r.source === r.target || !entities.has(r.source) || !entities.has(r.target)) continue;
      const k = `${r.source}\u0000${r.type}\u0000${r.target}`;
      const row = relations.get(k) ?? { source: r.source, target: r.target, type: r.type, weight: 0, chunk_ids: [] };
      row.weight += 1;
      if (!row.chunk_ids.includes(chunk.id)) row.chunk_ids.push(chunk.id);
      relations.set(k, row);
    }
  }
  return { entities: [...entities.values()], relations: [...relations.values()] };
}

/** What each chunk of a trained page states (stored with the chunk: a search reads it with the hit's text). */
export function chunkFactsOf(
  page: { chunks: { id: string }[] } & Pick<TrainedPage, 'entities' | 'relations'>,
): Map<string, ChunkFacts> {
  const names = new Map(page.entities.map((e) => [e.key, e.name]));
  const out = new Map<string, ChunkFacts>(page.chunks.map((c) => [c.id, { relations: [], names: [] }]));
  for (const r of page.relations) {
    for (const id of r.chunk_ids) {
      const facts = out.get(id);
      if (!facts) continue;
      facts.relations.push({ source: r.source, target: r.target, type: r.type, weight: r.weight });
      for (const key of [r.source, r.target])
        if (!facts.names.some((n) => n.key === key)) facts.names.push({ key, name: names.get(key) ?? key });
    }
  }
  return out;
}
