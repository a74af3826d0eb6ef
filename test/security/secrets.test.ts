/**
 * Secrets stay secret (contract §1 Keys, §3 headers, §4 credentials, §5 tool headers): API keys, provider API keys,
 * tool default header values, HTTP schedule header values and webhook signing secrets never come back in an answer
 * (masked as "***", except the webhook secret the contract shows its owner), never reach a log line (the services'
 * loggers captured at debug level while every route runs, failures included), and are not in a database dump (every
 * collection read raw through the driver; keys are stored as hashes, secrets sealed).
 */
import request from 'supertest';

import { plaintextInDump } from './dump';
import { writes } from './extra-fields';
import { runMatrix, send, type Actor } from './tenancy-kit';
import { describeEachWorld, type SecurityWorld } from './worlds';

describeEachWorld((current) => {
  let world: SecurityWorld;
  const answers: string[] = [];
  beforeAll(async () => {
    world = current();
    const keep = (r: request.Response) => answers.push(`${JSON.stringify(r.headers)} ${r.text}`);
    // Every route, as the owner and as the others (the matrix), then the owner's writes and reads once more.
    expect(await runMatrix(world)).toEqual([]);
    for (const req of Object.values(writes(world)))
      if (typeof req !== 'string') keep(await send(world.app, world.keys.A, req));
    for (const probe of Object.values(world.probes)) {
      if (probe.kind === 'list') keep(await send(world.app, world.keys.A, probe.req));
      if (probe.kind === 'hidden' && probe.req(probe.own).method === 'get')
        keep(await send(world.app, world.keys.A, probe.req(probe.own)));
    }
    for (const req of world.snapshot) keep(await send(world.app, world.keys.A, req));
    // Failures too: a revoked-looking key, and bodies refused by validation that carry a secret.
    for (const secret of world.secrets) {
      keep(await request(world.app).get('/healthz').set('x-api-key', secret));
      for (const [route, req] of Object.entries(writes(world))) {
        if (typeof req === 'string' || req.file || !/^POST /.test(route)) continue;
        keep(
          await send(world.app, world.keys.A, {
            ...req,
            body: { ...(req.body as object), name: { secret }, api_key: secret, headers: secret },
          }),
        );
      }
    }
  }, 180_000);

  const hidden = () => [
    ...world.secrets.filter((s) => !world.shown.includes(s)),
    ...(['A', 'B', 'C'] as Actor[]).map((a) => world.keys[a]),
  ];

  it('answers with no secret but those shown to their owner, masked values instead', () => {
    // Every route but the deletes (whose owner's answer would change the world) answered the owner at least once.
    const kept = Object.keys(world.probes).filter((route) => !route.startsWith('DELETE '));
    expect(answers.length).toBeGreaterThan(kept.length);
    const text = answers.join('\n');
    expect(hidden().filter((s) => text.includes(s))).toEqual([]);
    if (world.secrets.length > world.shown.length) expect(text).toContain('***');
  });

  it('writes no secret into its log', () => {
    if (world.lines === null) {
      // No log to read (graph): it is handed no secret of its own, and its answers were checked above.
      expect(world.secrets).toEqual([]);
      return;
    }
    expect(world.lines.length).toBeGreaterThan(0);
    const text = world.lines.join('\n');
    expect([...world.secrets, ...hidden()].filter((s) => text.includes(s))).toEqual([]);
  });

  it('stores no secret and no API key in plaintext', async () => {
    expect(await plaintextInDump(world)).toEqual([]);
  });
});
