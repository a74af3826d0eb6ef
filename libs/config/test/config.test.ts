import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { transformSync } from '@swc/core';

import {
  commonEnv,
  ConfigError,
  configTable,
  describeConfig,
  Joi,
  loadConfig,
  loadConfigOrExit,
} from '@platform/config';

const schema = Joi.object({
  NODE_ENV: commonEnv.NODE_ENV,
  LOG_LEVEL: commonEnv.LOG_LEVEL,
  MONGODB_URI: commonEnv.MONGODB_URI,
  API_KEY_CACHE_TTL_MS: commonEnv.API_KEY_CACHE_TTL_MS,
  JSON_BODY_LIMIT: commonEnv.JSON_BODY_LIMIT,
  PORT: Joi.number().port().default(3002).description('HTTP port.'),
  FEATURE_X: Joi.boolean().default(false).description('Turns feature X on.'),
  ENCRYPTION_KEY: Joi.string().required().description('AES-256 key for secrets at rest.'),
  REDIS_URL: Joi.string()
    .uri({ scheme: ['redis', 'rediss'] })
    .required()
    .description('Redis connection string.'),
});

interface Cfg {
  NODE_ENV: string;
  LOG_LEVEL: string;
  MONGODB_URI: string;
  API_KEY_CACHE_TTL_MS: number;
  JSON_BODY_LIMIT: string;
  PORT: number;
  FEATURE_X: boolean;
  ENCRYPTION_KEY: string;
  REDIS_URL: string;
}

const required = { ENCRYPTION_KEY: 'k', REDIS_URL: 'redis://127.0.0.1:6379' };

function configErrorOf(fn: () => unknown): ConfigError {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError);
    return err as ConfigError;
  }
  throw new Error('expected a ConfigError');
}

describe('loadConfig', () => {
  test('applies defaults', () => {
    const cfg = loadConfig<Cfg>(schema, { ...required });
    expect(cfg).toEqual({
      NODE_ENV: 'development',
      LOG_LEVEL: 'info',
      MONGODB_URI: 'mongodb://127.0.0.1:27017',
      API_KEY_CACHE_TTL_MS: 30000,
      JSON_BODY_LIMIT: '1mb',
      PORT: 3002,
      FEATURE_X: false,
      ENCRYPTION_KEY: 'k',
      REDIS_URL: 'redis://127.0.0.1:6379',
    });
  });

  test('converts strings to numbers and booleans', () => {
    const cfg = loadConfig<Cfg>(schema, {
      ...required,
      PORT: '8080',
      API_KEY_CACHE_TTL_MS: '1500',
      FEATURE_X: 'true',
      NODE_ENV: 'test',
    });
    expect(cfg.PORT).toBe(8080);
    expect(cfg.API_KEY_CACHE_TTL_MS).toBe(1500);
    expect(cfg.FEATURE_X).toBe(true);
    expect(cfg.NODE_ENV).toBe('test');
  });

  test('ignores and drops unknown variables (so process.env can be passed as is)', () => {
    const cfg = loadConfig<Cfg>(schema, { ...required, PATH: '/usr/bin', HOME: '/root', SOMETHING_ELSE: 'x' });
    expect(cfg).not.toHaveProperty('PATH');
    expect(cfg).not.toHaveProperty('SOMETHING_ELSE');
  });

  test('does not modify the env object it is given', () => {
    const env = { ...required, PORT: '8080' };
    loadConfig<Cfg>(schema, env);
    expect(env).toEqual({ ...required, PORT: '8080' });
  });

  test('a missing required variable throws ConfigError naming it', () => {
    const err = configErrorOf(() => loadConfig(schema, { REDIS_URL: required.REDIS_URL }));
    expect(err.name).toBe('ConfigError');
    expect(err.problems).toHaveLength(1);
    expect(err.problems[0]).toMatch(/^ENCRYPTION_KEY: /);
    expect(err.problems[0]).toMatch(/required/);
    expect(err.message).toContain('ENCRYPTION_KEY');
  });

  test('a wrong variable throws ConfigError naming it', () => {
    const err = configErrorOf(() => loadConfig(schema, { ...required, PORT: 'eighty' }));
    expect(err.problems).toEqual([expect.stringMatching(/^PORT: .*number/)]);
    expect(err.message).toContain('PORT');
  });

  test('every problem is reported at once, each naming its variable', () => {
    const err = configErrorOf(() =>
      loadConfig(schema, {
        REDIS_URL: 'http://not-redis',
        LOG_LEVEL: 'loud',
        API_KEY_CACHE_TTL_MS: '60000',
        MONGODB_URI: 'postgres://x',
      }),
    );
    const named = err.problems.map((p) => p.split(':')[0]);
    expect(named.sort()).toEqual(['API_KEY_CACHE_TTL_MS', 'ENCRYPTION_KEY', 'LOG_LEVEL', 'MONGODB_URI', 'REDIS_URL']);
    for (const v of named) expect(err.message).toContain(`  - ${v}: `);
    expect(err.message.startsWith('Invalid configuration:\n')).toBe(true);
    // messages do not repeat the variable name in quotes
    for (const p of err.problems) expect(p).not.toMatch(/^[A-Z_]+: "/);
  });

  test('commonEnv bounds API_KEY_CACHE_TTL_MS to 30 s and DB_SERVER_SELECTION_TIMEOUT_MS to 5 s', () => {
    const s = Joi.object(commonEnv);
    expect(() => loadConfig(s, { API_KEY_CACHE_TTL_MS: '30001' })).toThrow(ConfigError);
    expect(() => loadConfig(s, { DB_SERVER_SELECTION_TIMEOUT_MS: '5001' })).toThrow(ConfigError);
    const cfg = loadConfig<Record<string, unknown>>(s, {});
    expect(cfg).toMatchObject({
      AUTH_DB: 'auth',
      API_KEY_CACHE_TTL_MS: 30000,
      DB_SERVER_SELECTION_TIMEOUT_MS: 3000,
      SHUTDOWN_GRACE_MS: 10000,
    });
  });

  test('commonEnv: the MongoDB replica-set options default to retryable writes, primary reads, majority writes', () => {
    const s = Joi.object(commonEnv);
    expect(loadConfig<Record<string, unknown>>(s, {})).toMatchObject({
      MONGODB_RETRY_WRITES: true,
      MONGODB_READ_PREFERENCE: 'primary',
      MONGODB_WRITE_CONCERN: 'majority',
    });
    expect(
      loadConfig<Record<string, unknown>>(s, {
        MONGODB_RETRY_WRITES: 'false',
        MONGODB_READ_PREFERENCE: 'primaryPreferred',
        MONGODB_WRITE_CONCERN: '1',
      }),
    ).toMatchObject({
      MONGODB_RETRY_WRITES: false,
      MONGODB_READ_PREFERENCE: 'primaryPreferred',
      MONGODB_WRITE_CONCERN: '1',
    });
    const err = configErrorOf(() =>
      loadConfig(s, { MONGODB_RETRY_WRITES: 'maybe', MONGODB_READ_PREFERENCE: 'any', MONGODB_WRITE_CONCERN: 'all' }),
    );
    expect(err.problems.map((p) => p.split(':')[0]).sort()).toEqual([
      'MONGODB_READ_PREFERENCE',
      'MONGODB_RETRY_WRITES',
      'MONGODB_WRITE_CONCERN',
    ]);
  });
});

describe('describeConfig / configTable', () => {
  test('describeConfig lists every key with required flag, default and description', () => {
    const vars = describeConfig(schema);
    expect(vars.map((v) => v.name)).toEqual([
      'NODE_ENV',
      'LOG_LEVEL',
      'MONGODB_URI',
      'API_KEY_CACHE_TTL_MS',
      'JSON_BODY_LIMIT',
      'PORT',
      'FEATURE_X',
      'ENCRYPTION_KEY',
      'REDIS_URL',
    ]);
    for (const v of vars) expect(v.description.length).toBeGreaterThan(0);
    const byName = Object.fromEntries(vars.map((v) => [v.name, v]));
    expect(byName.PORT).toEqual({ name: 'PORT', required: false, default: 3002, description: 'HTTP port.' });
    expect(byName.ENCRYPTION_KEY).toEqual({
      name: 'ENCRYPTION_KEY',
      required: true,
      default: undefined,
      description: 'AES-256 key for secrets at rest.',
    });
    expect(byName.FEATURE_X!.default).toBe(false);
  });

  test('every commonEnv variable has a description', () => {
    const vars = describeConfig(Joi.object(commonEnv));
    expect(vars.map((v) => v.name).sort()).toEqual(Object.keys(commonEnv).sort());
    for (const v of vars) expect(v.description).not.toBe('');
  });

  test('configTable renders one markdown row per key with its description', () => {
    const table = configTable(schema);
    const rows = table.split('\n');
    expect(rows[0]).toBe('| Variable | Required | Default | Description |');
    expect(rows[1]).toBe('|---|---|---|---|');
    expect(rows).toHaveLength(2 + describeConfig(schema).length);
    for (const v of describeConfig(schema)) {
      const row = rows.find((r) => r.startsWith(`| \`${v.name}\` |`));
      expect(row).toBeDefined();
      expect(row).toContain(v.description);
      expect(row).toContain(v.required ? '| yes |' : '| no |');
    }
    expect(table).toContain('| `PORT` | no | `3002` | HTTP port. |');
    expect(table).toContain('| `FEATURE_X` | no | `false` | Turns feature X on. |');
    expect(table).toContain('| `ENCRYPTION_KEY` | yes |  | AES-256 key for secrets at rest. |');
  });
});

describe('loadConfigOrExit (in process)', () => {
  afterEach(() => jest.restoreAllMocks());

  test('returns the config when valid, without writing or exiting', () => {
    const exit = jest.spyOn(process, 'exit').mockImplementation((() => {
      throw new Error('exit called');
    }) as never);
    const write = jest.spyOn(process.stderr, 'write').mockImplementation(() => true);
    const cfg = loadConfigOrExit<Cfg>(schema, { ...required, PORT: '1234' }, 'svc');
    expect(cfg.PORT).toBe(1234);
    expect(exit).not.toHaveBeenCalled();
    expect(write).not.toHaveBeenCalled();
  });

  test('writes the problems prefixed with the service name and exits 78', () => {
    const exit = jest.spyOn(process, 'exit').mockImplementation(((code?: number) => {
      throw new Error(`exit ${code}`);
    }) as never);
    const written: string[] = [];
    jest.spyOn(process.stderr, 'write').mockImplementation(((chunk: string) => {
      written.push(String(chunk));
      return true;
    }) as never);
    expect(() => loadConfigOrExit(schema, { PORT: 'x' } as NodeJS.ProcessEnv, 'svc')).toThrow('exit 78');
    expect(exit).toHaveBeenCalledWith(78);
    const text = written.join('');
    expect(text.startsWith('svc: Invalid configuration:')).toBe(true);
    for (const v of ['PORT', 'ENCRYPTION_KEY', 'REDIS_URL']) expect(text).toContain(v);
    expect(text).not.toMatch(/\n\s+at /);
  });
});

describe('loadConfigOrExit (child process)', () => {
  let dir: string;
  let script: string;
  const configSrc = resolve(__dirname, '../src');
  const configNodeModules = resolve(__dirname, '../node_modules');

  beforeAll(() => {
    // Compile the library source on the fly (no dependency on a prior build) and run it in a real process.
    dir = mkdtempSync(join(tmpdir(), 'config-test-'));
    for (const file of readdirSync(configSrc).filter((f) => f.endsWith('.ts'))) {
      const lib = transformSync(readFileSync(join(configSrc, file), 'utf8'), {
        filename: file,
        jsc: { target: 'es2022', parser: { syntax: 'typescript' } },
        module: { type: 'commonjs' },
      }).code;
      writeFileSync(join(dir, file === 'index.ts' ? 'config.js' : file.replace(/\.ts$/, '.js')), lib);
    }
    script = join(dir, 'main.js');
    writeFileSync(
      script,
      `const { loadConfigOrExit, Joi } = require('./config.js');
const cfg = loadConfigOrExit(
  Joi.object({
    PORT: Joi.number().port().default(3000).description('port'),
    SECRET_KEY: Joi.string().required().description('key'),
    MODE: Joi.string().valid('a', 'b').default('a').description('mode'),
  }),
  process.env,
  'demo-service',
);
process.stdout.write(JSON.stringify(cfg) + '\\n');
`,
    );
  });

  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  function run(env: Record<string, string>) {
    return spawnSync(process.execPath, [script], {
      env: { PATH: process.env.PATH ?? '', NODE_PATH: configNodeModules, ...env },
      encoding: 'utf8',
      timeout: 20_000,
    });
  }

  test('valid env: runs on with the converted config', () => {
    const r = run({ SECRET_KEY: 's', PORT: '4000' });
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({ PORT: 4000, SECRET_KEY: 's', MODE: 'a' });
  });

  test('missing and wrong variables: exits 78, names each one on stderr, no stack trace', () => {
    const r = run({ PORT: 'not-a-port', MODE: 'c' });
    expect(r.status).toBe(78);
    expect(r.stdout).toBe('');
    expect(r.stderr.startsWith('demo-service: Invalid configuration:')).toBe(true);
    for (const v of ['PORT', 'SECRET_KEY', 'MODE']) expect(r.stderr).toMatch(new RegExp(`^  - ${v}: `, 'm'));
    expect(r.stderr).not.toMatch(/\n\s+at /);
    expect(r.stderr).not.toContain('ConfigError');
  });
});
