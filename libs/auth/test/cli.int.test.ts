import { execFileSync, spawn } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';

import { createApiKeyAuth, createApiKeyRepository, hashApiKey, type ApiKeyRepository } from '@platform/auth';
import { connectMongo, type Connection } from '@platform/db';
import { freePort, testInfra, uniqueName } from '@platform/testing';

const ROOT = resolve(__dirname, '../../..');
const CLI = join(ROOT, 'libs/auth/dist/cli.js');
const KEY_FORMAT = /^sk_[0-9A-Za-z]{40}$/;

/** True when some library the CLI runs from has a source file newer than its compiled output. */
function distIsStale(): boolean {
  for (const lib of ['auth', 'config', 'db', 'errors', 'logger']) {
    const src = join(ROOT, 'libs', lib, 'src');
    for (const f of readdirSync(src).filter((n) => n.endsWith('.ts'))) {
      const out = join(ROOT, 'libs', lib, 'dist', f.replace(/\.ts$/, '.js'));
      if (!existsSync(out) || statSync(out).mtimeMs < statSync(join(src, f)).mtimeMs) return true;
    }
  }
  return false;
}

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

function cli(args: string[], env: Record<string, string> = {}, timeoutMs = 20_000): Promise<Run> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(process.execPath, [CLI, ...args], {
      cwd: ROOT,
      env: { ...process.env, MONGODB_URI: testInfra.mongoUri, AUTH_DB: authDb, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (c: string) => (stdout += c));
    child.stderr.setEncoding('utf8').on('data', (c: string) => (stderr += c));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolvePromise({ code, stdout, stderr });
    });
  });
}

let authDb: string;
let conn: Connection;
let repo: ApiKeyRepository;

beforeAll(async () => {
  // scripts/test.sh builds everything first; a local run with edited sources rebuilds the CLI and its libraries.
  if (distIsStale())
    execFileSync('pnpm', ['--filter', '@platform/auth...', 'run', 'build'], {
      cwd: ROOT,
      stdio: 'ignore',
      timeout: 120_000,
    });
  authDb = uniqueName('authcli');
  conn = await connectMongo({ uri: testInfra.mongoUri, dbName: authDb, serverSelectionTimeoutMS: 5000 });
  repo = createApiKeyRepository(conn);
}, 150_000);

afterAll(async () => {
  if (conn) {
    await conn.dropDatabase().catch(() => undefined);
    await conn.close();
  }
});

const lastLine = (s: string) => s.trimEnd().split('\n').at(-1) ?? '';

describe('apikey CLI', () => {
  let key: string;

  test('create prints the new key alone on the last stdout line', async () => {
    const r = await cli(['create', '--user', 'u1', '--org', 'o1', '--name', 'x']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    key = lastLine(r.stdout);
    expect(key).toMatch(KEY_FORMAT);
    expect(r.stdout.endsWith(`\n${key}\n`)).toBe(true);
    // shown once: the other lines carry the prefix but not the key
    const others = r.stdout.trimEnd().split('\n').slice(0, -1).join('\n');
    expect(others).not.toContain(key);
    expect(others).toContain(key.slice(0, 12));
  });

  test('the created key resolves to {user_id, org_id} and only its hash is stored', async () => {
    expect(await repo.findActiveByHash(hashApiKey(key))).toEqual({ user_id: 'u1', org_id: 'o1' });
    const auth = createApiKeyAuth({ keys: repo, cacheTtlMs: 0 });
    expect(await auth.resolve(key)).toEqual({ user_id: 'u1', org_id: 'o1' });
    const docs = await conn.db!.collection('api_keys').find({}).toArray();
    expect(docs).toHaveLength(1);
    expect(JSON.stringify(docs)).not.toContain(key);
    expect(docs[0]).toMatchObject({
      prefix: key.slice(0, 12),
      key_hash: hashApiKey(key),
      user_id: 'u1',
      org_id: 'o1',
      name: 'x',
    });
  });

  test('list shows the prefix, owner and name, and never the key', async () => {
    const second = await cli(['create', '--user', 'u2', '--org', 'o1']);
    expect(second.code).toBe(0);
    const key2 = lastLine(second.stdout);
    expect(key2).toMatch(KEY_FORMAT);

    const r = await cli(['list']);
    expect(r.code).toBe(0);
    expect(r.stderr).toBe('');
    const lines = r.stdout.trimEnd().split('\n');
    expect(lines).toHaveLength(2);
    const line1 = lines.find((l) => l.startsWith(key.slice(0, 12)));
    expect(line1).toBeDefined();
    expect(line1).toContain('user=u1');
    expect(line1).toContain('org=o1');
    expect(line1).toContain('name=x');
    expect(line1).toMatch(/\tactive$/);
    expect(lines.some((l) => l.startsWith(key2.slice(0, 12)) && l.includes('user=u2'))).toBe(true);
    for (const k of [key, key2]) {
      expect(r.stdout).not.toContain(k);
      expect(r.stdout).not.toContain(k.slice(12));
      expect(r.stdout).not.toContain(hashApiKey(k));
    }
  });

  test('revoke <prefix>: the key no longer resolves, and list marks it revoked', async () => {
    const prefix = key.slice(0, 12);
    const r = await cli(['revoke', prefix]);
    expect(r.code).toBe(0);
    expect(r.stdout.trim()).toBe(`revoked ${prefix}`);
    expect(await repo.findActiveByHash(hashApiKey(key))).toBeNull();
    expect(await createApiKeyAuth({ keys: repo, cacheTtlMs: 0 }).resolve(key)).toBeNull();

    const list = await cli(['list']);
    const line = list.stdout.split('\n').find((l) => l.startsWith(prefix));
    expect(line).toMatch(/\trevoked=\d{4}-\d\d-\d\dT[\d:.]+Z$/);
  });

  test('revoking an unknown or already revoked prefix exits 1', async () => {
    const again = await cli(['revoke', key.slice(0, 12)]);
    expect(again.code).toBe(1);
    expect(again.stdout).toContain('no active key');
    const unknown = await cli(['revoke', 'sk_000000000']);
    expect(unknown.code).toBe(1);
  });

  test('pnpm passes a "--" separator through; it is ignored', async () => {
    const r = await cli(['--', 'list']);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(key.slice(0, 12));
  });

  test.each([
    ['missing --user', ['create', '--org', 'o1', '--name', 'x'], /--user/],
    ['--user without a value', ['create', '--org', 'o1', '--user'], /--user/],
    ['--user followed by another flag', ['create', '--user', '--org', 'o1'], /--user/],
    ['bad characters in --user', ['create', '--user', 'u 1', '--org', 'o1'], /--user/],
    ['missing --org', ['create', '--user', 'u1'], /--org/],
    ['revoke without a prefix', ['revoke'], /prefix/],
    ['unknown command', ['destroy'], /command/],
    ['no command', [], /command/],
  ])('%s exits 2 with a usage message and creates nothing', async (_name, args, mention) => {
    const before = await conn.db!.collection('api_keys').countDocuments();
    const r = await cli(args);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(mention);
    expect(r.stderr).toContain('usage:');
    expect(r.stderr).toContain('pnpm apikey create --user <user_id> --org <org_id>');
    expect(r.stdout).not.toMatch(/sk_[0-9A-Za-z]{40}/);
    expect(await conn.db!.collection('api_keys').countDocuments()).toBe(before);
  });

  test('a wrong MONGODB_URI exits 78 naming the variable', async () => {
    const r = await cli(['list'], { MONGODB_URI: 'http://localhost:27017' });
    expect(r.code).toBe(78);
    expect(r.stderr).toContain('MONGODB_URI');
    expect(r.stderr).not.toMatch(/\n\s+at /);
  });

  test('an unreachable database exits 2 with a clear message, promptly', async () => {
    const port = await freePort();
    const t0 = Date.now();
    const r = await cli(['list'], { MONGODB_URI: `mongodb://127.0.0.1:${port}` });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`cannot reach the database at mongodb://127.0.0.1:${port}`);
    expect(Date.now() - t0).toBeLessThan(15_000);
  });
});
