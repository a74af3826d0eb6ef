/** The built service as a real process (dist/main.js reading env, as the README's run command starts it). */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

import {
  createTestDatabases,
  startServiceProcess,
  testInfra,
  uniqueName,
  type ServiceProcess,
  type TestDatabases,
} from '@platform/testing';

import { textPdf } from './support/text-fixtures';

let dbs: TestDatabases;
let svc: ServiceProcess;
let uploadDir: string;

beforeAll(async () => {
  dbs = await createTestDatabases('ocr_proc');
  uploadDir = mkdtempSync(join(tmpdir(), 'ocr-proc-uploads-'));
  svc = await startServiceProcess({
    script: resolve(__dirname, '../dist/main.js'),
    env: {
      MONGODB_URI: testInfra.mongoUri,
      MONGODB_DB: uniqueName('ocr_proc_svc'),
      AUTH_DB: dbs.authDb,
      UPLOAD_DIR: uploadDir,
      LOG_LEVEL: 'warn',
    },
  });
}, 30_000);

afterAll(async () => {
  await svc?.stop();
  await dbs.cleanup();
  rmSync(uploadDir, { recursive: true, force: true });
});

it('serves /healthz, /readyz and /openapi.json, and extracts an uploaded PDF through its compiled document process', async () => {
  expect((await fetch(`${svc.url}/healthz`)).status).toBe(200);
  expect((await fetch(`${svc.url}/readyz`)).status).toBe(200);
  const doc = (await (await fetch(`${svc.url}/openapi.json`)).json()) as { paths: Record<string, unknown> };
  expect(Object.keys(doc.paths)).toEqual(['/extract', '/extract/{extraction_id}']);

  const key = await dbs.mintKey({ user_id: 'ada', org_id: 'org-proc' });
  const form = new FormData();
  form.append(
    'file',
    new Blob([await textPdf([['Served by the real process']])], { type: 'application/pdf' }),
    'real.pdf',
  );
  const res = await fetch(`${svc.url}/extract?organization_id=org-proc`, {
    method: 'POST',
    headers: { 'x-api-key': key },
    body: form,
  });
  expect(res.status).toBe(200);
  const body = (await res.json()) as { data: Record<string, { content: string }>; id: string };
  expect(body.data['1']).toEqual({ page: 1, content: 'Served by the real process' });
  const again = await fetch(`${svc.url}/extract/${body.id}`, { headers: { 'x-api-key': key } });
  expect(again.status).toBe(200);
}, 30_000);
