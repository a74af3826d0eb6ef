import type { Model } from 'mongoose';

/** The API's list paging: `skip` ≥ 0 and `limit` 1–100, validated at the boundary. */
export interface Page {
  skip: number;
  limit: number;
}

/** A list request of objects that belong to an agent and can be paused (webhooks, schedules). */
export interface ListFilter extends Page {
  agent_id?: string;
  is_active?: boolean;
}

/** The equality filter of a `ListFilter`'s optional fields (undefined ones left out). */
export function listEqualities(f: Omit<ListFilter, keyof Page>): Record<string, unknown> {
  const filter: Record<string, unknown> = {};
  if (f.agent_id !== undefined) filter.agent_id = f.agent_id;
  if (f.is_active !== undefined) filter.is_active = f.is_active;
  return filter;
}

/** A sort: fields in order, each ascending (1) or descending (-1); the last one unique (`_id`). */
export type SortKeys = [field: string, direction: 1 | -1][];

/** The lists' order: newest first by creation, then by id. */
export const NEWEST_FIRST: SortKeys = [
  ['created_at', -1],
  ['_id', -1],
];

const sortOf = (keys: SortKeys) => Object.fromEntries(keys) as Record<string, 1 | -1>;

/**
 * One page of `filter`'s documents in `sort` order (newest first by default), and how many match in all; the page
 * and the count are read at once. Served by an index of the filter's equality fields followed by the sort's.
 */
export async function findPage<D, R>(
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- the document type is the mapping's: D
  model: Model<any>,
  filter: Record<string, unknown>,
  page: Page,
  toRecord: (d: D) => R,
  sort: SortKeys = NEWEST_FIRST,
): Promise<{ items: R[]; total: number }> {
  const [docs, total] = await Promise.all([
    model.find(filter).sort(sortOf(sort)).skip(page.skip).limit(page.limit).lean<D[]>(),
    model.countDocuments(filter),
  ]);
  return { items: docs.map(toRecord), total };
}

/**
 * The condition "after `last` in `sort` order" of keyset paging: for sort keys k1..kn and the last item's values
 * v1..vn, `k1 beyond v1`, or `k1 = v1 and k2 beyond v2`, and so on. With the filter's equalities it is served by the
 * same index as the sort: a page starts where the previous ended, however deep, and a document inserted or removed
 * meanwhile neither repeats nor skips another.
 */
export function afterKey(sort: SortKeys, last: unknown[]): Record<string, unknown> {
  const branches = sort.map(([field, dir], i) => {
    const branch: Record<string, unknown> = {};
    for (let j = 0; j < i; j++) branch[sort[j]![0]] = last[j];
    branch[field] = { [dir === 1 ? '$gt' : '$lt']: last[i] };
    return branch;
  });
  return branches.length === 1 ? branches[0]! : { $or: branches };
}

/**
 * One keyset page: up to `limit` documents of `filter` in `sort` order after `after` (the sort values of the
 * previous page's last document; none: from the start), with the values to pass for the next page (undefined at the
 * end).
 */
export async function findKeysetPage<D>(
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- the document type is the caller's: D
  model: Model<any>,
  filter: Record<string, unknown>,
  sort: SortKeys,
  limit: number,
  after?: unknown[],
  projection?: Record<string, 0 | 1>,
): Promise<{ items: D[]; next?: unknown[] }> {
  const cond = after ? afterKey(sort, after) : {};
  // Beside the filter's own conditions, never over them (a range on a sort key, an `$or`).
  const where: Record<string, unknown> = Object.keys(cond).some((k) => k in filter)
    ? { ...filter, $and: [...((filter.$and as unknown[] | undefined) ?? []), cond] }
    : { ...filter, ...cond };
  const items = await model
    .find(where as never, projection)
    .sort(sortOf(sort))
    .limit(limit)
    .lean<D[]>();
  const last = items.at(-1) as Record<string, unknown> | undefined;
  return items.length < limit || !last ? { items } : { items, next: sort.map(([f]) => last[f]) };
}
