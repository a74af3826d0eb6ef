import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

import { unserved, type Keys, type Shape } from './rule';

/**
 * Index discipline: every filter and sort the services' code sent during the test run (recorded through the
 * driver's command monitoring by libs/db, `DB_QUERY_LOG`) is served by an index its collection declares, by the rule
 * of rule.ts. So every list page and lookup is an index lookup on MongoDB, whatever the development server does
 * with it. scripts/test.sh runs this after the other suites, over what they recorded (`QUERY_LOG_DIR`).
 */
interface QueryLine {
  kind: 'query';
  db: string;
  collection: string;
  command: string;
  filter: Shape;
  sort?: Keys;
  caller: string;
}
interface IndexLine {
  kind: 'index';
  db: string;
  collection: string;
  keys: Keys;
}

/** Queries sent on purpose without an index, each with its reason. */
const EXEMPT: { caller: RegExp; collection: string; why: string }[] = [
  {
    caller: /libs\/scheduling\/(src|dist)\/execution\.migrate\./,
    collection: 'executions',
    why: 'the one-time migration of stores written by earlier versions',
  },
  {
    caller: /services\/agent\/(src|dist)\/sessions\/session\.backfill\./,
    collection: 'chat_messages',
    why: 'the one-time pass that gives sessions stored before session records existed their record',
  },
];

/** Code of the services and their libraries (not tests, not the data layer itself). */
const isProductCode = (caller: string) =>
  /^(services|libs)\/[^/]+\/(src|dist)\//.test(caller) && !/^libs\/(db|testing)\//.test(caller);

const dir = process.env.QUERY_LOG_DIR;

test('every query the services sent is served by a declared index', () => {
  if (!dir) throw new Error('QUERY_LOG_DIR is not set: run it through `pnpm test` (scripts/test.sh)');
  const lines = readdirSync(dir)
    .filter((f) => f.endsWith('.jsonl'))
    .flatMap((f) => readFileSync(join(dir, f), 'utf8').split('\n').filter(Boolean))
    .map((l) => JSON.parse(l) as QueryLine | IndexLine);
  // Each process records its models' indexes; a collection's are the distinct key lists of all of them.
  const declaredBy = new Map<string, Map<string, Keys>>();
  for (const l of lines)
    if (l.kind === 'index') {
      const name = `${l.db}.${l.collection}`;
      declaredBy.set(name, (declaredBy.get(name) ?? new Map()).set(JSON.stringify(l.keys), l.keys));
    }
  const indexes = new Map([...declaredBy].map(([name, keys]) => [name, [...keys.values()]]));
  const queries = lines.filter((l): l is QueryLine => l.kind === 'query' && isProductCode(l.caller));
  const violations = new Set<string>();
  for (const q of queries) {
    if (EXEMPT.some((e) => e.collection === q.collection && e.caller.test(q.caller))) continue;
    const declared = indexes.get(`${q.db}.${q.collection}`) ?? [['_id', 1]].map((k) => [k] as Keys);
    if (unserved(declared, q.filter, q.sort ?? []).length === 0) continue;
    violations.add(
      `${q.collection} ${q.command} ${JSON.stringify(q.filter)}${q.sort ? ` sort ${JSON.stringify(q.sort)}` : ''}\n` +
        `    sent by ${q.caller.replace(/:\d+$/, '')}\n    indexes: ${declared.map((k) => JSON.stringify(Object.fromEntries(k))).join(' ')}`,
    );
  }
  expect(queries.length).toBeGreaterThan(100); // the suites ran and were recorded
  expect([...violations].sort()).toEqual([]);
});
