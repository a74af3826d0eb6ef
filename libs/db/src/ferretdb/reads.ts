import mongoose from 'mongoose';
import type { Pool } from 'pg';

import { queryServed } from '../query-log';
import { asOutage, quoteLiteral } from './indexes';

/**
 * Reads served from FerretDB's PostgreSQL, which FerretDB would sort, count and filter (beyond top-level equalities)
 * in its own process: a `find` with a limit, a `findOne` beyond equalities and a `countDocuments` become one statement
 * over the expressions its btree indexes hold (`_jsonb -> 'field'`), so the declared indexes serve them; rows are
 * decoded as the driver decodes BSON. Translated: top-level fields every schema types as one scalar, with a value,
 * `$eq`, `$ne`, `$in`, `$gt(e)`, `$lt(e)`, `$exists`, `$and`, `$or`, and sorts on them; anything else is FerretDB's.
 */
export type FieldTypes = Map<string, string>;

const SCALARS = new Set(['String', 'Number', 'Date', 'Boolean', 'ObjectId']);
const RANGES: Record<string, string> = { $gt: '>', $gte: '>=', $lt: '<', $lte: '<=' };
class Untranslatable extends Error {}
const no = (): never => {
  throw new Untranslatable();
};
const isOid = (v: unknown): v is mongoose.mongo.ObjectId => v instanceof mongoose.mongo.ObjectId;
/** A condition of operators (`{$gt: 1}`), not a value (a Date or an ObjectId has no `$` key). */
export const isOperators = (v: unknown): v is Record<string, unknown> =>
  v !== null && typeof v === 'object' && Object.keys(v).some((k) => k.startsWith('$'));

/** Adds a schema's scalar top-level fields (`Date!`: required, never missing); two types of one field: none. */
export function addFieldTypes(types: FieldTypes, schema: mongoose.Schema): void {
  schema.eachPath((path, type) => {
    if (path.includes('.')) return;
    const required = path === '_id' || (type as { isRequired?: boolean }).isRequired === true;
    const t = SCALARS.has(type.instance) ? type.instance : 'other';
    const had = types.get(path)?.replace('!', '');
    const agree = t !== 'other' && (had === undefined || had === t);
    types.set(path, agree ? `${t}${required && types.get(path) !== t ? '!' : ''}` : 'other');
  });
}

/** The jsonb text of a scalar as FerretDB stores it (dates as epoch milliseconds, ObjectIds as hex). */
function jsonOf(v: unknown): string {
  if (v instanceof Date) return String(v.getTime());
  if (isOid(v)) return JSON.stringify(v.toHexString());
  return typeof v === 'string' || typeof v === 'boolean' || (typeof v === 'number' && Number.isFinite(v))
    ? JSON.stringify(v)
    : no();
}
const jsonTypeOf = (v: unknown) =>
  typeof v === 'boolean' ? 'boolean' : typeof v === 'string' || isOid(v) ? 'string' : 'number';

function translator(params: string[], types: FieldTypes) {
  const field = (name: string) =>
    name.startsWith('$') || name.includes('.') || (types.get(name) ?? 'other') === 'other'
      ? no()
      : `(_jsonb -> ${quoteLiteral(name)})`;
  const value = (v: unknown) => `$${params.push(jsonOf(v))}::jsonb`;
  // Equality as MongoDB means it: null also matches a missing field.
  const equals = (f: string, v: unknown) =>
    v === null ? `(${f} IS NULL OR ${f} = 'null'::jsonb)` : `${f} = ${value(v)}`;
  const condition = (name: string, cond: unknown): string => {
    const f = field(name);
    if (!isOperators(cond)) return equals(f, cond);
    return Object.entries(cond)
      .map(([op, v]) => {
        if (op === '$eq') return equals(f, v);
        if (op === '$ne') return `NOT coalesce(${equals(f, v)}, false)`;
        if (op === '$exists') return `${f} IS ${v ? 'NOT ' : ''}NULL`;
        if (op === '$in' && Array.isArray(v)) return `(false${v.map((x) => ` OR ${equals(f, x)}`).join('')})`;
        // Only values of the bound's type are in a range: MongoDB never ranks a null, or a string, among numbers.
        if (RANGES[op] && v !== null)
          return `(${f} ${RANGES[op]} ${value(v)} AND jsonb_typeof(${f}) = '${jsonTypeOf(v)}')`;
        return no();
      })
      .join(' AND ');
  };
  const where = (filter: Record<string, unknown>): string =>
    Object.entries(filter)
      .map(([k, v]) =>
        (k === '$and' || k === '$or') && Array.isArray(v) && v.length > 0
          ? `(${v.map((x) => where(x as Record<string, unknown>)).join(k === '$and' ? ' AND ' : ' OR ')})`
          : `(${condition(k, v)})`,
      )
      .join(' AND ') || 'true';
  // A required field is ordered by the expression its btree index holds, so the index serves the order.
  const key = (name: string) =>
    types.get(name)?.endsWith('!') ? field(name) : `coalesce(${field(name)}, 'null'::jsonb)`;
  const dir = (d: unknown) => (d === 1 || d === 'asc' ? 'ASC' : d === -1 || d === 'desc' ? 'DESC' : no());
  const orderBy = (sort: unknown) => {
    const entries = Object.entries((sort ?? {}) as Record<string, unknown>);
    return entries.length ? ` ORDER BY ${entries.map(([k, d]) => `${key(k)} ${dir(d)}`).join(', ')}` : '';
  };
  return { where, orderBy };
}

interface Sjson {
  t?: string;
  $s?: { p: Record<string, Sjson>; $k: string[] };
  i?: Sjson[];
}

function decode(v: unknown, s: Sjson | undefined): unknown {
  if (s?.t === 'object') return decodeDoc(v as Record<string, unknown>, s.$s!);
  if (s?.t === 'array') return (v as unknown[]).map((x, i) => decode(x, s.i?.[i]));
  if (['string', 'bool', 'int', 'long', 'null'].includes(s?.t ?? '') || (s?.t === 'double' && typeof v === 'number'))
    return v;
  if (s?.t === 'date') return new Date(v as number);
  return s?.t === 'objectId' ? new mongoose.Types.ObjectId(v as string) : no();
}
function decodeDoc(v: Record<string, unknown>, s: { p: Record<string, Sjson>; $k: string[] }) {
  return Object.fromEntries(s.$k.map((k) => [k, decode(v[k], s.p[k])]));
}

/** An inclusion (`{a: 1}`, `_id` kept unless excluded) or exclusion (`{a: 0}`) of top-level fields. */
function project(doc: Record<string, unknown>, projection: unknown): Record<string, unknown> {
  const spec = new Map(Object.entries((projection ?? {}) as Record<string, unknown>));
  if ([...spec].some(([k, v]) => k.includes('.') || !['number', 'boolean'].includes(typeof v))) no();
  const including = [...spec].some(([k, v]) => k !== '_id' && v);
  const kept = (k: string) => (spec.has(k) ? Boolean(spec.get(k)) : !including || k === '_id');
  return Object.fromEntries(Object.entries(doc).filter(([k]) => kept(k)));
}

export interface ReadOptions {
  sort?: unknown;
  skip?: number;
  limit?: number;
  projection?: unknown;
}

/** The SQL reads of a collection; undefined: left to FerretDB. While FerretDB is away (`up`), none (503 as its own). */
interface Source {
  pool: Pool;
  db: string;
  collection: string;
  table: () => Promise<string | null>;
  up: () => boolean;
}
type Rows = Record<string, unknown>[];

export function createReads({ pool, db, collection, table, up }: Source, types: FieldTypes) {
  async function run<T>(
    query: { command: 'find' | 'count'; filter: Record<string, unknown>; sort?: unknown },
    build: (t: ReturnType<typeof translator>) => string,
    rows: (r: Rows) => T,
  ) {
    const params: string[] = [];
    if (!up()) return undefined;
    try {
      const text = build(translator(params, types));
      const t = await table();
      if (!t) return undefined;
      const answer = rows((await pool.query(text.replaceAll('$TABLE', t), params)).rows as Rows);
      queryServed({ db, collection, ...query });
      return answer;
    } catch (err) {
      if (err instanceof Untranslatable) return undefined;
      throw asOutage(err);
    }
  }
  const page = (o: ReadOptions) =>
    `${o.limit ? ` LIMIT ${Math.floor(o.limit)}` : ''}${o.skip ? ` OFFSET ${Math.floor(o.skip)}` : ''}`;
  return {
    find: (filter: Record<string, unknown>, o: ReadOptions) =>
      run(
        { command: 'find', filter, sort: o.sort },
        (t) => {
          // A page of an `$in` ordered by the keys after it (statuses of a list, newest first): each value's ordered
          // index range read up to the page's end and merged, as MongoDB's SORT_MERGE does, not all matches sorted.
          const [field, cond] = Object.entries(filter).find(([, v]) => isInList(v)) ?? [];
          if (!field || !o.sort || !o.limit || '$or' in filter)
            return `SELECT _jsonb FROM $TABLE WHERE ${t.where(filter)}${t.orderBy(o.sort)}${page(o)}`;
          const end = ` LIMIT ${Math.floor(o.limit + (o.skip ?? 0))}`;
          const branches = (cond as { $in: unknown[] }).$in.map(
            (v) => `(SELECT _jsonb FROM $TABLE WHERE ${t.where({ ...filter, [field]: v })}${t.orderBy(o.sort)}${end})`,
          );
          return `SELECT _jsonb FROM (${branches.join(' UNION ALL ')}) AS m${t.orderBy(o.sort)}${page(o)}`;
        },
        (rows) =>
          rows.map(({ _jsonb: d }) => project(decodeDoc(d as Record<string, unknown>, (d as Sjson).$s!), o.projection)),
      ),
    count: (filter: Record<string, unknown>, o: ReadOptions) =>
      run(
        { command: 'count', filter },
        (t) => `SELECT count(*)::int AS n FROM (SELECT 1 FROM $TABLE WHERE ${t.where(filter)}${page(o)}) AS m`,
        (rows) => Number(rows[0]?.n ?? 0),
      ),
  };
}

export type Reads = ReturnType<typeof createReads>;

/** `{$in: [...]}` of a few strings, numbers or booleans. */
function isInList(v: unknown): v is { $in: unknown[] } {
  const list = isOperators(v) && Object.keys(v).length === 1 ? v.$in : undefined;
  return Array.isArray(list) && list.length > 0 && list.length <= 8 && list.every((x) => typeof x !== 'object');
}

/** Top-level equalities alone: FerretDB serves them from its lookup indexes as well as a statement here would. */
export const onlyEqualities = (filter: Record<string, unknown>) =>
  Object.entries(filter).every(([k, v]) => !k.startsWith('$') && !isOperators(v));
