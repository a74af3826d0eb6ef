/* API key CLI: `pnpm apikey create --user <id> --org <id> [--name <label>]`, `revoke <prefix>`, `list`. */
import Joi from 'joi';

import { commonEnv, loadConfigOrExit } from '@platform/config';
import { connectMongo } from '@platform/db';

import { createApiKeyRepository } from './api-key.repository';

const USAGE = `usage:
  pnpm apikey create --user <user_id> --org <org_id> [--name <label>]
  pnpm apikey revoke <prefix>
  pnpm apikey list`;

function flag(args: string[], name: string): string | undefined {
  const i = args.indexOf(`--${name}`);
  const value = i >= 0 ? args[i + 1] : undefined;
  return value?.startsWith('--') ? undefined : value;
}

function fail(message: string): never {
  process.stderr.write(`${message}\n${USAGE}\n`);
  process.exit(2);
}

const ID = /^[A-Za-z0-9._@:-]{1,128}$/;

async function main(): Promise<void> {
  const config = loadConfigOrExit(
    Joi.object<{ MONGODB_URI: string; AUTH_DB: string }>({
      MONGODB_URI: commonEnv.MONGODB_URI,
      AUTH_DB: commonEnv.AUTH_DB,
    }),
    process.env,
    'apikey',
  );
  const [command, ...args] = process.argv.slice(2).filter((a) => a !== '--');
  if (!command || !['create', 'revoke', 'list'].includes(command)) fail('unknown or missing command');
  const conn = await connectMongo({ uri: config.MONGODB_URI, dbName: config.AUTH_DB }).catch((err: Error) =>
    fail(`cannot reach the database at ${config.MONGODB_URI}: ${err.message}`),
  );
  const repo = createApiKeyRepository(conn);
  try {
    await repo.init();
    if (command === 'create') {
      const user = flag(args, 'user');
      const org = flag(args, 'org');
      if (!user || !ID.test(user)) fail('--user <user_id> is required (letters, digits, . _ @ : -)');
      if (!org || !ID.test(org)) fail('--org <org_id> is required (letters, digits, . _ @ : -)');
      const { key, record } = await repo.create({ user_id: user, org_id: org }, flag(args, 'name'));
      process.stdout.write(
        `created key ${record.prefix}… for user ${user} in org ${org}; it is shown only once:\n${key}\n`,
      );
    } else if (command === 'revoke') {
      const prefix = args[0];
      if (!prefix) fail('revoke needs the key prefix');
      const ok = await repo.revoke(prefix);
      process.stdout.write(ok ? `revoked ${prefix}\n` : `no active key with prefix ${prefix}\n`);
      if (!ok) process.exitCode = 1;
    } else {
      for (const k of await repo.list()) {
        process.stdout.write(
          `${k.prefix}\tuser=${k.user_id}\torg=${k.org_id}\tname=${k.name ?? ''}\tcreated=${k.created_at}\t${k.revoked_at ? `revoked=${k.revoked_at}` : 'active'}\n`,
        );
      }
    }
  } finally {
    await conn.close();
  }
}

void main();
