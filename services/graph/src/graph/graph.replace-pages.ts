import { isDuplicateKeyError, type Owner } from '@platform/db';
import type { IndexLog } from '@platform/retrieval';

import type { graphModels } from './graph.model';
import { chunkDocs, factsDocs, indexedChunks } from './graph.record';
import type { TrainedPage } from './graph.types';

type Models = ReturnType<typeof graphModels>;

/** Deletes what the matching pages contributed: chunks, facts and legacy entity and relation rows. */
export const deletePageRows = async (m: Models, where: { rag_id: string; url?: { $in: string[] } }) => {
  await Promise.all([
    m.Chunk.deleteMany(where),
    m.Facts.deleteMany(where),
    m.Entity.deleteMany(where),
    m.Relation.deleteMany(where),
  ]);
};

/** graph.repository.ts's `replacePages`, over its models and index log. */
export function createPageReplacer(m: Models, log: IndexLog) {
  /**
   * Replaces everything these pages contributed to the graph (so training the same URL again changes nothing but
   * the training time) and writes one change of the search index for them. A batch costs a few commands whatever
   * its size: only the rows of pages the graph had (`known`) are deleted; chunks, the pages' facts (one document
   * per page for its entities and relations) and new pages are inserted by one command each, at once with the
   * index change.
   */
  return async function replacePages(
    owner: Owner,
    ragId: string,
    pages: TrainedPage[],
    now: Date,
    sourceId: string | undefined,
    known: Set<string>,
  ): Promise<void> {
    if (pages.length === 0) return;
    const urls = pages.map((p) => p.url);
    const old = new Set(urls.filter((u) => known.has(u)));
    for (const u of urls) known.add(u);
    if (old.size > 0) await deletePageRows(m, { rag_id: ragId, url: { $in: [...old] } });
    const chunks = chunkDocs(ragId, pages);
    const facts = factsDocs(ragId, pages);
    const pageFields = (page: TrainedPage) => ({
      rag_id: ragId,
      url: page.url,
      user_id: owner.user_id,
      org_id: owner.org_id,
      title: page.title,
      chunk_count: page.chunks.length,
      trained_at: now,
    });
    const fresh = pages.filter((p) => !old.has(p.url));
    const update = (page: TrainedPage) =>
      m.Page.updateOne(
        { rag_id: ragId, url: page.url },
        { $set: pageFields(page), ...(sourceId ? { $addToSet: { source_ids: sourceId } } : {}) },
        { upsert: true },
      );
    const writePages = async () => {
      if (fresh.length > 0) {
        try {
          await m.Page.insertMany(
            fresh.map((p) => ({ ...pageFields(p), ...(sourceId ? { source_ids: [sourceId] } : {}) })),
            { lean: true },
          );
        } catch (err) {
          // Another training stored one of them meanwhile: each is upserted instead.
          if (!isDuplicateKeyError(err)) throw err;
          for (const p of fresh) await update(p);
        }
      }
      for (const p of pages.filter((x) => old.has(x.url))) await update(p);
    };
    const added = indexedChunks(pages);
    // Independent writes, at once: the index change carries the chunks itself.
    const rows = () =>
      Promise.all([
        chunks.length > 0 ? m.Chunk.insertMany(chunks, { lean: true }) : null,
        m.Facts.insertMany(facts, { lean: true }),
      ]);
    const [stored] = await Promise.allSettled([
      rows(),
      writePages(),
      log.append(ragId, { removeUrls: urls, add: added }),
    ]).then((all) => {
      const failed = all.slice(1).find((r) => r.status === 'rejected');
      if (failed) throw failed.reason;
      return all;
    });
    if (stored.status === 'rejected') {
      // A page stored meanwhile by another training of the graph (an interrupted run still finishing, another
      // replica): what those pages have is replaced, so that each ends with one copy of its rows.
      if (!isDuplicateKeyError(stored.reason)) throw stored.reason;
      await deletePageRows(m, { rag_id: ragId, url: { $in: urls } });
      await rows();
    }
  };
}
