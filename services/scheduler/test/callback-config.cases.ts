/** Cases of callback-config.int.test.ts that each kind of callback owner runs (the file holds its app and helpers). */
import type request from 'supertest';

import type { SchedulerTestApp } from './helpers';

export const URL_A = 'https://receiver.example.test/hooks/a';
export const URL_B = 'https://receiver.example.test/hooks/b';

/** A resource that takes a callback_url (the test file's KINDS): its routes, its collection, a body that creates one. */
export interface Kind {
  name: string;
  base: string;
  collection: string;
  body: () => Record<string, unknown>;
  list: string;
}

/** What the cases use of the test file: its app (started in its beforeAll), calls as Alice, and its helpers. */
export interface CallbackConfigContext {
  t: () => SchedulerTestApp;
  api: { post: (p: string, body?: object) => request.Test; patch: (p: string, body: object) => request.Test };
  create: (k: Kind, extra?: Record<string, unknown>) => Promise<request.Response['body']>;
  rawOf: (collection: string, id: string) => Promise<Record<string, unknown>>;
}

/** The callback_url values refused (422 at create and PATCH) and those taken, and concurrent first settings. */
export function refusesAndAcceptsCallbackUrls(k: Kind, ctx: CallbackConfigContext): void {
  const { api, create, rawOf } = ctx;

  it.each<[string, unknown]>([
    ['ftp://x', 'ftp://x'],
    ['not a url', 'not a url'],
    ['a URL of 2049 characters', `https://example.com/${'a'.repeat(2049 - 'https://example.com/'.length)}`],
    ['a number', 42],
    ['an object', { url: URL_A }],
  ])('refuses callback_url %s with 422 (create and PATCH)', async (_label, bad) => {
    const created = await api.post(`${k.base}/`, { ...k.body(), callback_url: bad });
    expect(created.status).toBe(422);
    expect(created.body.detail.map((d: { loc: string[] }) => d.loc)).toContainEqual(['body', 'callback_url']);
    const r = await create(k);
    const patched = await api.patch(`${k.base}/${r.id}`, { callback_url: bad });
    expect(patched.status).toBe(422);
    expect(patched.body.detail.map((d: { loc: string[] }) => d.loc)).toContainEqual(['body', 'callback_url']);
    expect((await rawOf(k.collection, r.id)).callback_url).toBeNull();
  });

  it.each([
    ['the cloud metadata address', 'http://169.254.169.254/latest/meta-data/'],
    ['a private address', 'http://10.1.2.3/hook'],
    ['loopback IPv6 (the allow-list names 127.0.0.1 only)', 'http://[::1]:8080/'],
    ['a private address written as IPv4-mapped IPv6', 'https://[::ffff:192.168.0.1]/'],
  ])('refuses a callback_url naming %s: 422 at create and PATCH, nothing stored', async (_label, bad) => {
    const refused = { loc: ['body', 'callback_url'], msg: expect.stringMatching(/may not reach/), type: 'url.refused' };
    const created = await api.post(`${k.base}/`, { ...k.body(), callback_url: bad });
    expect(created.status).toBe(422);
    expect(created.body.detail).toEqual([refused]);
    const r = await create(k);
    const patched = await api.patch(`${k.base}/${r.id}`, { callback_url: bad });
    expect(patched.status).toBe(422);
    expect(patched.body.detail).toEqual([refused]);
    expect((await rawOf(k.collection, r.id)).callback_url).toBeNull();
  });

  it('accepts a literal address the allow-list names, public addresses and host names (checked at each call)', async () => {
    for (const url of ['http://127.0.0.1:9999/hook', 'http://93.184.216.34/hook', 'http://hooks.internal.test/x']) {
      const r = await create(k, { callback_url: url });
      expect(r.callback_url).toBe(url);
    }
  });

  it('concurrent PATCHes that each set the first URL: one secret is kept, and only its answer shows it', async () => {
    const r = await create(k);
    const answers = await Promise.all(
      [URL_A, URL_B, URL_A, URL_B].map((url) => api.patch(`${k.base}/${r.id}`, { callback_url: url })),
    );
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 200]);
    const shown = answers.map((a) => a.body.callback_secret).filter((x) => x !== undefined);
    expect(shown).toHaveLength(1);
    const raw = await rawOf(k.collection, r.id);
    expect(ctx.t().scheduleBox.decrypt(String(raw.callback_secret_sealed))).toBe(shown[0]);
  });

  it('accepts a URL of exactly 2048 characters, http as well as https', async () => {
    const long = `http://example.com/${'a'.repeat(2048 - 'http://example.com/'.length)}`;
    const r = await create(k, { callback_url: long });
    expect(r.callback_url).toBe(long);
  });
}
