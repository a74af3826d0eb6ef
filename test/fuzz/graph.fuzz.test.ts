/** The graph app (with the real rag app owning the RAG configurations) against generated requests. */
import request from 'supertest';

import { startGraphStack } from '../../services/graph/test/helpers';
import { startTestSite } from '../../services/graph/test/site';
import { fuzzSuite } from './fuzz-suite';
import { OWNER, serveTarget, type Target } from './target-kit';

async function startGraphTarget(): Promise<Target> {
  const site = await startTestSite({ hugeBytes: 1024 });
  const g = await startGraphStack({ allowHosts: `127.0.0.1:${site.site.port}`, pageTimeoutMs: 2_000 });
  const closeAll = async () => {
    await g.close();
    await site.close();
  };
  return serveTarget({ app: g.app, lines: g.lines, dbs: g.dbs, close: closeAll }, async ({ key }) => {
    const owned = await g.dbs.mintKey(OWNER);
    const ragIds = [await g.createRag(owned), await g.createRag(key)];
    await request(g.app)
      .post(`/v4/knowledge_graph/website/?rag_id=${ragIds[0]}`)
      .set('x-api-key', key)
      .send({ urls: [`${site.site.url}/`], max_crawl_pages: 5, max_crawl_depth: 1 });
    const task = await request(g.app)
      .post(`/v4/knowledge_graph/website/?rag_id=${ragIds[0]}&async=true`)
      .set('x-api-key', key)
      .send({ urls: [`${site.site.url}/about`] });
    return {
      pathIds: (_op, param) => (param === 'task_id' ? [String(task.body.task_id)] : []),
      known: {
        rag_id: ragIds,
        urls: [
          [`${site.site.url}/`],
          [`${site.site.url}/about`, `${site.site.url}/team`],
          [`${site.site.url}/products`],
        ],
        crawler_type: ['cheerio', 'playwright:chromium'],
        query: ['Zylotech', 'Qorvian Institute Lisbon', 'lantern'],
      },
    };
  });
}

fuzzSuite('graph', startGraphTarget);
