import request from 'supertest';

import { mongoose } from '@platform/db';

import { startRaiApp, type RaiTestApp } from './helpers';

let t: RaiTestApp;
let alice: string;
let bob: string;

beforeAll(async () => {
  t = await startRaiApp();
  alice = await t.dbs.mintKey({ user_id: 'alice', org_id: 'acme' });
  bob = await t.dbs.mintKey({ user_id: 'bob', org_id: 'globex' });
});
afterAll(() => t.close());

const create = (key: string, body: object) => request(t.app).post('/v1/rai/policies').set('x-api-key', key).send(body);

describe('POST /v1/rai/policies', () => {
  it('answers 201 with every section defaulted, _id and id alike, owner from the key', async () => {
    const res = await create(alice, {
      name: 'Defaults',
      user_id: 'mallory',
      _id: 'x',
      created_at: '2000-01-01T00:00:00Z',
    });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      _id: res.body.id,
      id: expect.stringMatching(/^[0-9a-f]{24}$/),
      user_id: 'alice',
      name: 'Defaults',
      description: '',
      allowed_topics: { enabled: false, topics: [] },
      banned_topics: { enabled: false, topics: [] },
      keywords: { enabled: false, keywords: [] },
      toxicity_check: { enabled: false, threshold: 0.4 },
      prompt_injection: { enabled: false, threshold: 0.3 },
      secrets_detection: { enabled: false, action: 'mask' },
      pii_detection: {
        enabled: false,
        types: {
          CREDIT_CARD: 'disabled',
          EMAIL_ADDRESS: 'disabled',
          PHONE_NUMBER: 'disabled',
          PERSON: 'disabled',
          LOCATION: 'disabled',
          IP_ADDRESS: 'disabled',
          US_SSN: 'disabled',
          URL: 'disabled',
          DATE_TIME: 'disabled',
        },
        custom_pii: [],
      },
      llm_judge: {
        enabled: false,
        credential_id: null,
        model: null,
        checks: ['prompt_injection', 'toxicity', 'topics'],
        timeout_ms: 3000,
        on_error: 'allow',
      },
      nsfw_check: { enabled: false, threshold: 0.8, validation_method: 'full' },
      created_at: expect.stringMatching(/Z$/),
      updated_at: res.body.created_at,
    });
    expect(res.body.created_at).not.toBe('2000-01-01T00:00:00.000Z');
  });

  it('stores topics given as {name} objects as strings, and keeps string and object terms', async () => {
    const res = await create(alice, {
      name: 'Terms',
      banned_topics: { enabled: true, topics: ['politics', { name: 'religion' }] },
      allowed_topics: { enabled: true, topics: [{ name: 'billing' }] },
      keywords: {
        enabled: true,
        keywords: ['secret plan', { label: 'codename', replacement: '[CODE]', action: 'redact' }, { label: 'zeta' }],
      },
      pii_detection: {
        enabled: true,
        types: { EMAIL_ADDRESS: 'redact' },
        custom_pii: ['EMP-1', { label: 'ACME-42', action: 'block' }],
      },
    });
    expect(res.status).toBe(201);
    expect(res.body.banned_topics.topics).toEqual(['politics', 'religion']);
    expect(res.body.allowed_topics.topics).toEqual(['billing']);
    expect(res.body.keywords.keywords).toEqual([
      'secret plan',
      { label: 'codename', replacement: '[CODE]', action: 'redact' },
      { label: 'zeta', replacement: '[REDACTED]', action: 'block' },
    ]);
    expect(res.body.pii_detection.custom_pii).toEqual([
      'EMP-1',
      { label: 'ACME-42', replacement: '[REDACTED]', action: 'block' },
    ]);
    expect(res.body.pii_detection.types.EMAIL_ADDRESS).toBe('redact');
    const read = await request(t.app).get(`/v1/rai/policies/${res.body._id}`).set('x-api-key', alice);
    expect(read.body).toEqual(res.body);
  });

  validatesPolicyBodies();
});

function validatesPolicyBodies(): void {
  it('answers 422 per invalid field: ranges, enums, missing name', async () => {
    const res = await create(alice, {
      toxicity_check: { enabled: true, threshold: 1.01 },
      prompt_injection: { threshold: -0.01 },
      secrets_detection: { action: 'hide' },
      pii_detection: { types: { EMAIL_ADDRESS: 'mask' } },
      banned_topics: { topics: [{ title: 'x' }] },
    });
    expect(res.status).toBe(422);
    const locs = (res.body.detail as { loc: (string | number)[] }[]).map((d) => d.loc.join('.'));
    expect(locs).toEqual(
      expect.arrayContaining([
        'body.name',
        'body.toxicity_check.threshold',
        'body.prompt_injection.threshold',
        'body.secrets_detection.action',
        'body.pii_detection.types.EMAIL_ADDRESS',
        'body.banned_topics.topics.0.name',
      ]),
    );
  });

  it('accepts thresholds 0 and 1 and limits at their edge, and refuses one past them', async () => {
    const edge = await create(alice, {
      name: 'n'.repeat(200),
      toxicity_check: { threshold: 0 },
      prompt_injection: { threshold: 1 },
      keywords: { keywords: Array.from({ length: 500 }, (_, i) => `word${i}`) },
    });
    expect(edge.status).toBe(201);
    const over = await create(alice, {
      name: 'n'.repeat(201),
      keywords: { keywords: Array.from({ length: 501 }, (_, i) => `w${i}`) },
    });
    expect(over.status).toBe(422);
    expect(over.body.detail.map((d: { loc: string[] }) => d.loc.join('.'))).toEqual([
      'body.name',
      'body.keywords.keywords',
    ]);
  });

  it('answers 415 for a body that is not JSON and 422 json_invalid for broken JSON', async () => {
    const text = await request(t.app)
      .post('/v1/rai/policies')
      .set('x-api-key', alice)
      .set('content-type', 'text/plain')
      .send('name=x');
    expect(text.status).toBe(415);
    const broken = await request(t.app)
      .post('/v1/rai/policies')
      .set('x-api-key', alice)
      .set('content-type', 'application/json')
      .send('{');
    expect(broken.status).toBe(422);
    expect(broken.body.detail[0].type).toBe('json_invalid');
  });
}

describe('GET, PUT, DELETE /v1/rai/policies/{id}', () => {
  it('updates the sections given, keeps the others, then deletes', async () => {
    const id = (await create(alice, { name: 'Update me', keywords: { enabled: true, keywords: ['a1'] } })).body
      ._id as string;
    const put = await request(t.app)
      .put(`/v1/rai/policies/${id}`)
      .set('x-api-key', alice)
      .send({ toxicity_check: { enabled: true }, description: 'd' });
    expect(put.status).toBe(200);
    expect(put.body).toMatchObject({
      name: 'Update me',
      description: 'd',
      toxicity_check: { enabled: true, threshold: 0.4 },
      keywords: { enabled: true, keywords: ['a1'] },
    });
    expect(Date.parse(put.body.updated_at)).toBeGreaterThanOrEqual(Date.parse(put.body.created_at));
    expect((await request(t.app).delete(`/v1/rai/policies/${id}`).set('x-api-key', alice)).status).toBe(204);
    const gone = await request(t.app).get(`/v1/rai/policies/${id}`).set('x-api-key', alice);
    expect(gone.status).toBe(404);
    expect(gone.body).toEqual({ detail: 'Policy not found' });
  });

  it('answers 404 for ids of the wrong format or unknown, on every method', async () => {
    for (const id of ['nope', '0'.repeat(24)]) {
      expect((await request(t.app).get(`/v1/rai/policies/${id}`).set('x-api-key', alice)).status).toBe(404);
      expect(
        (await request(t.app).put(`/v1/rai/policies/${id}`).set('x-api-key', alice).send({ name: 'x' })).status,
      ).toBe(404);
      expect((await request(t.app).delete(`/v1/rai/policies/${id}`).set('x-api-key', alice)).status).toBe(404);
    }
  });

  it('answers 422 for an invalid update', async () => {
    const id = (await create(alice, { name: 'Bad update' })).body._id as string;
    const res = await request(t.app)
      .put(`/v1/rai/policies/${id}`)
      .set('x-api-key', alice)
      .send({ toxicity_check: { threshold: 2 } });
    expect(res.status).toBe(422);
  });
});

describe('owner isolation and lists', () => {
  it("lists only the caller's policies, newest first, paged; another owner's are 404", async () => {
    const carol = await t.dbs.mintKey({ user_id: 'carol', org_id: 'initech' });
    const ids: string[] = [];
    for (const name of ['p1', 'p2', 'p3']) ids.push((await create(carol, { name })).body._id as string);
    const list = await request(t.app).get('/v1/rai/policies').set('x-api-key', carol);
    expect(list.status).toBe(200);
    expect(list.body.total).toBe(3);
    expect(list.body.policies.map((p: { name: string }) => p.name)).toEqual(['p3', 'p2', 'p1']);
    const page = await request(t.app).get('/v1/rai/policies?skip=2&limit=1').set('x-api-key', carol);
    expect(page.body.policies.map((p: { name: string }) => p.name)).toEqual(['p1']);
    expect((await request(t.app).get(`/v1/rai/policies/${ids[0]}`).set('x-api-key', bob)).status).toBe(404);
    expect(
      (await request(t.app).put(`/v1/rai/policies/${ids[0]}`).set('x-api-key', bob).send({ name: 'stolen' })).status,
    ).toBe(404);
    expect((await request(t.app).delete(`/v1/rai/policies/${ids[0]}`).set('x-api-key', bob)).status).toBe(404);
    const bobs = await request(t.app).get('/v1/rai/policies/').set('x-api-key', bob);
    expect(bobs.body.policies.some((p: { _id: string }) => ids.includes(p._id))).toBe(false);
    expect((await request(t.app).get('/v1/rai/policies?limit=101').set('x-api-key', carol)).status).toBe(422);
  });

  it('answers 403 without a key, with a bad key and with a revoked key', async () => {
    const missing = await request(t.app).get('/v1/rai/policies');
    expect(missing.status).toBe(403);
    expect(missing.body).toEqual({ detail: 'API key missing' });
    const bad = await request(t.app).post('/v1/rai/inference').set('x-api-key', 'garbage').send({});
    expect(bad.status).toBe(403);
    expect(bad.body).toEqual({ detail: 'Invalid Permission' });
    const revoked = await t.dbs.mintKey({ user_id: 'dave', org_id: 'x' });
    await t.dbs.revokeKey(revoked);
    expect((await request(t.app).get('/v1/rai/policies').set('x-api-key', revoked)).status).toBe(403);
  });
});

describe('nsfw_check (the hosted product section, stored only)', () => {
  // What the hosted product's Python SDK sends (`create_rai_policy(..., nsfw_check=True, nsfw_threshold=0.7)`).
  const hosted = {
    name: 'Hosted shape',
    description: 'from the SDK',
    toxicity_check: { enabled: true, threshold: 0.3 },
    banned_topics: { enabled: true, topics: [{ name: 'politics' }] },
    nsfw_check: { enabled: true, threshold: 0.7, validation_method: 'partial' },
  };

  it('is stored as sent, returned by GET and list, kept by a PUT of other sections and replaced by its own', async () => {
    const created = await create(alice, hosted);
    expect(created.status).toBe(201);
    expect(created.body.nsfw_check).toEqual(hosted.nsfw_check);
    const id = created.body.id as string;
    const get = () => request(t.app).get(`/v1/rai/policies/${id}`).set('x-api-key', alice);
    expect((await get()).body.nsfw_check).toEqual(hosted.nsfw_check);
    const list = await request(t.app).get('/v1/rai/policies').set('x-api-key', alice);
    expect(list.body.policies.find((p: { id: string }) => p.id === id).nsfw_check).toEqual(hosted.nsfw_check);

    const put = (body: object) => request(t.app).put(`/v1/rai/policies/${id}`).set('x-api-key', alice).send(body);
    expect((await put({ description: 'other sections only', toxicity_check: { enabled: false } })).status).toBe(200);
    expect((await get()).body).toMatchObject({ description: 'other sections only', nsfw_check: hosted.nsfw_check });

    // A section given replaces that section, its defaults filling what it leaves out (as every section does).
    const replaced = await put({ nsfw_check: { enabled: false } });
    expect(replaced.status).toBe(200);
    expect(replaced.body.nsfw_check).toEqual({ enabled: false, threshold: 0.8, validation_method: 'full' });
    expect((await get()).body.nsfw_check).toEqual({ enabled: false, threshold: 0.8, validation_method: 'full' });
  });

  it('answers 422 at the field for a threshold outside 0–1, an unknown method or a wrong type', async () => {
    const res = await create(alice, {
      name: 'Bad nsfw',
      nsfw_check: { enabled: 'very', threshold: 1.5, validation_method: 'pixels' },
    });
    expect(res.status).toBe(422);
    expect(res.body.detail.map((d: { loc: string[] }) => d.loc)).toEqual([
      ['body', 'nsfw_check', 'enabled'],
      ['body', 'nsfw_check', 'threshold'],
      ['body', 'nsfw_check', 'validation_method'],
    ]);
    const id = (await create(alice, { name: 'Bad nsfw update' })).body.id as string;
    const put = await request(t.app)
      .put(`/v1/rai/policies/${id}`)
      .set('x-api-key', alice)
      .send({ nsfw_check: { threshold: -0.1 } });
    expect(put.status).toBe(422);
    expect(put.body.detail[0].loc).toEqual(['body', 'nsfw_check', 'threshold']);
  });

  it('reads as its defaults on a policy stored before the section existed, and is not acted on', async () => {
    const id = (await create(alice, { ...hosted, name: 'Elder' })).body.id as string;
    // The document as it was stored then: its rules without the section.
    const policies = t.dbs.conn.collection('rai_policies');
    const _id = new mongoose.Types.ObjectId(id);
    const stored = (await policies.findOne({ _id }))!;
    const rules = JSON.parse(stored.rules_json as string) as Record<string, unknown>;
    delete rules.nsfw_check;
    await policies.updateOne({ _id }, { $set: { rules_json: JSON.stringify(rules) } });
    const read = await request(t.app).get(`/v1/rai/policies/${id}`).set('x-api-key', alice);
    expect(read.body.nsfw_check).toEqual({ enabled: false, threshold: 0.8, validation_method: 'full' });

    // An enabled nsfw_check changes no verdict: only the policy's other checks run.
    const strict = (await create(alice, { name: 'NSFW only', nsfw_check: { enabled: true, threshold: 0 } })).body
      .id as string;
    const verdict = await request(t.app)
      .post('/v1/rai/inference')
      .set('x-api-key', alice)
      .send({ policy_id: strict, text: 'A calm note about the weather.' });
    expect(verdict.status).toBe(200);
    expect(verdict.body).toMatchObject({ allowed: true, action: 'allow', violations: [] });
  });
});
