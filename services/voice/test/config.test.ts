import { ConfigError, describeConfig, loadConfig } from '@platform/config';

import { configSchema, type VoiceServiceConfig } from '../src/config';

it('defaults to port 3005, its own database and a 10 MiB body limit', () => {
  const c = loadConfig<VoiceServiceConfig>(configSchema, {});
  expect(c).toMatchObject({ PORT: 3005, MONGODB_DB: 'voice', JSON_BODY_LIMIT: '10mb', AUTH_DB: 'auth' });
});

it('names a wrong variable, and describes every one', () => {
  expect(() => loadConfig(configSchema, { PORT: 'x' })).toThrow(ConfigError);
  for (const v of describeConfig(configSchema)) expect(v.description).not.toBe('');
});
