/**
 * The index rule of the index-discipline test: a query is served by an index when its equality fields (a value,
 * `$eq`, `$in`) are the index's first keys, in any order, then its sort fields follow in order (all in the index's
 * directions or all reversed; a sort field that is also an equality is free), and every range field (`$gt`, `$gte`,
 * `$lt`, `$lte`) is among the keys after the equalities. A query naming its `_id`s (a value or `$in`) is always served
 * (point reads of the `_id` index). Each branch of an
 * `$or` (with the conditions beside it) must be served on its own. Conditions an index cannot narrow (`$ne`,
 * `$exists`, `$nin`, ...) may ride along, but a query of nothing else is a collection scan.
 */
export type Shape = Record<string, unknown>;
export type Keys = [string, unknown][];

interface Parts {
  eq: Set<string>;
  range: Set<string>;
  other: Set<string>;
  idLookup: boolean;
}

const EQUALITY = new Set(['$eq', '$in']);
const RANGE = new Set(['$gt', '$gte', '$lt', '$lte']);

function merge(a: Parts, b: Parts): Parts {
  return {
    eq: new Set([...a.eq, ...b.eq]),
    range: new Set([...a.range, ...b.range]),
    other: new Set([...a.other, ...b.other]),
    idLookup: a.idLookup || b.idLookup,
  };
}

/** Each alternative a filter shape stands for (one per combination of `$or` branches), as its parts. */
export function alternatives(shape: Shape): Parts[] {
  let alts: Parts[] = [{ eq: new Set(), range: new Set(), other: new Set(), idLookup: false }];
  for (const [field, ops] of Object.entries(shape)) {
    if (field === '$and' && Array.isArray(ops)) {
      for (const sub of ops as Shape[]) alts = alts.flatMap((a) => alternatives(sub).map((b) => merge(a, b)));
    } else if (field === '$or' && Array.isArray(ops)) {
      const branches = (ops as Shape[]).flatMap((sub) => alternatives(sub));
      alts = alts.flatMap((a) => branches.map((b) => merge(a, b)));
    } else if (field.startsWith('$')) {
      alts = alts.map((a) => merge(a, { eq: new Set(), range: new Set(), other: new Set([field]), idLookup: false }));
    } else {
      const list = ops === '=' ? ['$eq'] : (ops as string[]);
      const part: Parts = { eq: new Set(), range: new Set(), other: new Set(), idLookup: false };
      if (list.some((o) => EQUALITY.has(o))) part.eq.add(field);
      else if (list.some((o) => RANGE.has(o))) part.range.add(field);
      else part.other.add(field);
      if (field === '_id' && (ops === '=' || list.includes('$in'))) part.idLookup = true; // point reads of `_id`
      alts = alts.map((a) => merge(a, part));
    }
  }
  return alts;
}

const dirOf = (v: unknown) => (v === -1 || v === 'desc' || v === 'descending' ? -1 : 1);

/** Whether an index with `keys` serves one alternative of a query with `sort`. */
export function serves(keys: Keys, p: Parts, sort: Keys = []): boolean {
  if (p.idLookup) return true;
  const names = keys.map(([k]) => k);
  const prefix = names.slice(0, p.eq.size);
  if (prefix.length !== p.eq.size || !prefix.every((k) => p.eq.has(k))) return false;
  const rest = keys.slice(p.eq.size);
  const sortLeft = sort.filter(([f]) => !p.eq.has(f));
  if (sortLeft.length > 0) {
    const along = sortLeft.every(([f, d], i) => rest[i]?.[0] === f && dirOf(rest[i]?.[1]) === dirOf(d));
    const against = sortLeft.every(([f, d], i) => rest[i]?.[0] === f && dirOf(rest[i]?.[1]) === -dirOf(d));
    if (!along && !against) return false;
  }
  for (const r of p.range) if (!p.eq.has(r) && !rest.some(([k]) => k === r)) return false;
  // Something must narrow the scan or give its order: an equality, a range or a sort.
  return p.eq.size > 0 || p.range.size > 0 || sortLeft.length > 0;
}

/** The alternatives of a query that no index of `indexes` serves (empty: the query is served). */
export function unserved(indexes: Keys[], shape: Shape, sort: Keys = []): Parts[] {
  return alternatives(shape).filter((p) => !indexes.some((keys) => serves(keys, p, sort)));
}
