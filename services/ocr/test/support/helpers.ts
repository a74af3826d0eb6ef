import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Express } from 'express';
import request from 'supertest';

import { createApiKeyAuth, createApiKeyRepository } from '@platform/auth';
import { pingMongo, syncIndexes } from '@platform/db';
import { captureLogger, createTestDatabases, type TestDatabases } from '@platform/testing';

import { createApp, type AppDeps } from '../../src/app';
import { workerScript } from './worker-build';

export interface OcrTestApp {
  app: Express;
  dbs: TestDatabases;
  lines: string[];
  /** Upload folder of this app (empty again after each request). */
  uploadDir: string;
  close(): Promise<void>;
}

export type OcrTestOptions = Partial<Pick<AppDeps, 'limiter' | 'document' | 'ocr' | 'maxFileBytes' | 'internalSecret'>>;

/** The real OCR app on a fresh database of the real server, with small limits suited to small fixtures. */
export async function startOcrApp(opts: OcrTestOptions = {}): Promise<OcrTestApp> {
  const dbs = await createTestDatabases('ocr');
  const { logger, lines } = captureLogger('ocr');
  const uploadDir = mkdtempSync(join(tmpdir(), 'ocr-test-uploads-'));
  const app = createApp({
    logger,
    db: dbs.conn,
    auth: createApiKeyAuth({ keys: createApiKeyRepository(dbs.authConn), cacheTtlMs: 30_000 }),
    readiness: { mongodb: () => pingMongo(dbs.conn) },
    uploadDir,
    limiter: opts.limiter ?? { concurrency: 2, maxQueued: 16, waitMs: 20_000 },
    document: opts.document ?? { timeoutMs: 20_000, memoryMb: 512 },
    ocr: opts.ocr ?? { languages: 'eng', dpi: 150, maxOcrPages: 10 },
    maxFileBytes: opts.maxFileBytes,
    internalSecret: opts.internalSecret,
    workerScript: workerScript(),
  });
  await syncIndexes(dbs.conn);
  return {
    app,
    dbs,
    lines,
    uploadDir,
    close: async () => {
      await dbs.cleanup();
      rmSync(uploadDir, { recursive: true, force: true });
    },
  };
}

/** POST /extract with `bytes` as the file field. */
export function upload(
  app: Express,
  key: string,
  org: string,
  bytes: Uint8Array,
  opts: { filename?: string; ocr?: string } = {},
) {
  const query = new URLSearchParams({ organization_id: org, ...(opts.ocr ? { ocr: opts.ocr } : {}) });
  return request(app)
    .post(`/extract?${query.toString()}`)
    .set('x-api-key', key)
    .attach('file', Buffer.from(bytes), { filename: opts.filename ?? 'doc.pdf', contentType: 'application/pdf' });
}

/** The content of each page of a 200 answer, in page order. */
export const contents = (body: { data: Record<string, { content: string }> }) =>
  Object.keys(body.data)
    .sort((a, b) => Number(a) - Number(b))
    .map((k) => body.data[k]!.content);
