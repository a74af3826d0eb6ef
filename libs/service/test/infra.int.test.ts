import { mongoose } from '@platform/db';
import { openInfra, openStores } from '@platform/service';
import { captureLogger, testInfra, uniqueName } from '@platform/testing';

import { commonEnvDefaults } from './config-defaults';

const config = (db: string) => ({
  ...commonEnvDefaults,
  MONGODB_URI: testInfra.mongoUri,
  MONGODB_DB: db,
  AUTH_DB: `${db}_auth`,
  REDIS_URL: testInfra.redisUrl,
});

it('openInfra: the service database, the auth database with its keys, the key middleware and readiness over MongoDB', async () => {
  const { logger } = captureLogger('svc');
  const name = uniqueName('svc');
  const infra = await openInfra({ name: 'svc', config: config(name), logger });
  try {
    infra.db.model('Thing', new mongoose.Schema({ n: { type: Number, index: true } }), 'things');
    await infra.prepare();
    expect(Object.keys(infra.readiness)).toEqual(['mongodb']);
    expect(await infra.readiness.mongodb!()).toBe(true);
    const minted = await infra.keys.create({ user_id: 'u', org_id: 'o' }, 'test');
    expect(minted.key).toMatch(/^sk_/);
    expect(typeof infra.auth.middleware).toBe('function');
    expect((await infra.db.collection('things').indexes()).map((i) => i.name)).toContain('n_1');
  } finally {
    await infra.db.dropDatabase();
    await infra.authDb.dropDatabase();
    await infra.close();
  }
});

it('openStores with Redis: readiness over both; close ends both connections', async () => {
  const { logger } = captureLogger('svc');
  const stores = await openStores({ name: 'svc', config: config(uniqueName('svc')), logger, redis: 'producer' });
  expect(Object.keys(stores.readiness).sort()).toEqual(['mongodb', 'redis']);
  await new Promise((r) => setTimeout(r, 200));
  expect(await stores.readiness.redis!()).toBe(true);
  await stores.close();
  expect(stores.redis!.status).toBe('end');
});
