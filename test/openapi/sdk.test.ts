/**
 * The SDK (@platform/sdk): its committed documents and generated types are what regeneration from the services'
 * builders would write now, and its typed clients call real services through @platform/outbound (address guard,
 * size cap) with openapi-fetch.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

import { listen, type RunningServer } from '@platform/http';
import { createOutboundClient, OutboundBlockedError, OutboundTooLargeError } from '@platform/outbound';
import { createRaiServiceClient, outboundFetch } from '@platform/sdk';
import { startLocalServer } from '@platform/testing';

import { startRaiApp, type RaiTestApp } from '../../services/rai/test/helpers';

interface Generator {
  documents(load: (path: string) => { openapi?: unknown }): Record<string, object>;
  documentJson(doc: object): string;
  typesOf(jsonPath: string): string;
  SDK: string;
}
// eslint-disable-next-line @typescript-eslint/no-require-imports
const generator = require('../../libs/sdk/scripts/generate.cjs') as Generator;
const REGENERATE =
  'run `pnpm --filter @platform/sdk run generate` and commit libs/sdk/openapi and libs/sdk/src/generated';

describe('generated from the documents', () => {
  // The builders as the services import them (jest compiles them as it does for every test).
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const docs = generator.documents((path) => require(path) as { openapi?: unknown });
  const committed = (dir: string, ext: string) =>
    existsSync(join(generator.SDK, dir))
      ? readdirSync(join(generator.SDK, dir))
          .filter((f) => f.endsWith(ext))
          .map((f) => f.slice(0, -ext.length))
          .sort()
      : [];

  test('there is one document and one types file per service document with operations, and no other', () => {
    expect(Object.keys(docs).length).toBeGreaterThanOrEqual(6);
    expect({
      documents: committed('openapi', '.json'),
      types: committed('src/generated', '.ts'),
      hint: REGENERATE,
    }).toEqual({
      documents: Object.keys(docs),
      types: Object.keys(docs),
      hint: REGENERATE,
    });
  });

  test('each committed document is what the service builds now', () => {
    const stale = Object.entries(docs)
      .filter(
        ([name, doc]) =>
          readFileSync(join(generator.SDK, 'openapi', `${name}.json`), 'utf8') !== generator.documentJson(doc),
      )
      .map(([name]) => name);
    expect({ stale, hint: REGENERATE }).toEqual({ stale: [], hint: REGENERATE });
  });

  test('each committed types file is what openapi-typescript makes of its document', () => {
    const stale = Object.keys(docs).filter(
      (name) =>
        readFileSync(join(generator.SDK, 'src', 'generated', `${name}.ts`), 'utf8') !==
        generator.typesOf(join(generator.SDK, 'openapi', `${name}.json`)),
    );
    expect({ stale, hint: REGENERATE }).toEqual({ stale: [], hint: REGENERATE });
  }, 120_000);
});

describe('a typed client on a real service', () => {
  let rai: RaiTestApp;
  let server: RunningServer;
  let key: string;
  const outbound = () => createOutboundClient({ allowHosts: `127.0.0.1:${server.port}` });

  beforeAll(async () => {
    rai = await startRaiApp();
    server = await listen(rai.app, 0, undefined, '127.0.0.1');
    key = await rai.dbs.mintKey({ user_id: 'sdk-user', org_id: 'sdk-org' });
  });
  afterAll(async () => {
    await server.close(0);
    await rai.close();
  });

  test('creates, reads and lists a policy with typed paths, bodies and answers', async () => {
    const out = outbound();
    const client = createRaiServiceClient({
      baseUrl: `http://127.0.0.1:${server.port}/`,
      outbound: out,
      headers: { 'x-api-key': key },
    });
    const made = await client.POST('/v1/rai/policies', { body: { name: 'sdk policy' } });
    expect(made.response.status).toBe(201);
    const id = made.data!.id!;
    const read = await client.GET('/v1/rai/policies/{policy_id}', { params: { path: { policy_id: id } } });
    expect(read.data).toMatchObject({ id, name: 'sdk policy' });
    const missing = await client.GET('/v1/rai/policies/{policy_id}', {
      params: { path: { policy_id: 'f'.repeat(24) } },
    });
    expect([missing.response.status, missing.error]).toEqual([404, { detail: expect.stringMatching(/not found/) }]);
    const list = await client.GET('/v1/rai/policies', { params: { query: { limit: 10 } } });
    expect(list.data?.total).toBe(1);
    out.close();
  });

  test('the address guard applies: a client whose outbound does not allow the host sends nothing', async () => {
    const out = createOutboundClient({ allowHosts: '' });
    const client = createRaiServiceClient({
      baseUrl: `http://127.0.0.1:${server.port}`,
      outbound: out,
      headers: { 'x-api-key': key },
    });
    await expect(client.GET('/v1/rai/policies')).rejects.toBeInstanceOf(OutboundBlockedError);
    out.close();
  });

  test('the size cap applies to the answer', async () => {
    const big = await startLocalServer((_req, res) => {
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ detail: 'x'.repeat(10_000) }));
    });
    const out = createOutboundClient({ allowHosts: new URL(big.url).host });
    const fetch = outboundFetch(out, { maxResponseBytes: 1_000 });
    await expect(fetch(new Request(`${big.url}/anything`))).rejects.toBeInstanceOf(OutboundTooLargeError);
    const res = await outboundFetch(out)(
      new Request(`${big.url}/anything`, {
        method: 'POST',
        body: '{"a":1}',
        headers: { 'content-type': 'application/json' },
      }),
    );
    expect([res.status, ((await res.json()) as { detail: string }).detail.length]).toEqual([200, 10_000]);
    expect(big.requests.at(-1)).toMatchObject({ method: 'POST', json: { a: 1 } });
    out.close();
    await big.close();
  });
});
