/** The OCR app, with stored extractions of the fuzz owner's organization to read. */
import request from 'supertest';

import { startOcrApp } from '../../services/ocr/test/support/helpers';
import { textPdf } from '../../services/ocr/test/support/text-fixtures';
import { OTHER, OWNER, serveTarget, type Target } from './target-kit';

/**
 * The OCR app on its own database. The generator sends JSON, raw bytes and no body at all, never a well-formed
 * multipart upload, so what it exercises is everything around the document: key, organization, query, media type,
 * multipart framing, path ids. The documents themselves are covered by services/ocr/test.
 */
export async function startOcrTarget(): Promise<Target> {
  const t = await startOcrApp({ limiter: { concurrency: 2, maxQueued: 4, waitMs: 2_000 } });
  return serveTarget(t, async ({ key }) => {
    const pdf = Buffer.from(await textPdf([['Fuzz fixture page']]));
    const extraction = async () => {
      const res = await request(t.app)
        .post(`/extract?organization_id=${OWNER.org_id}`)
        .set('x-api-key', key)
        .attach('file', pdf, 'fuzz.pdf');
      if (res.status !== 200) throw new Error(`extraction fixture answered ${res.status}: ${res.text}`);
      return res.body.id as string;
    };
    const ids = [await extraction(), await extraction()];
    return {
      pathIds: (_op, param) => (param === 'extraction_id' ? ids : []),
      known: { organization_id: [OWNER.org_id, OTHER.org_id], ocr: ['auto', 'off', 'force'] },
    };
  });
}
