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

/**
 * One page of `filter`'s documents, newest first (`created_at`, then `_id`, descending), and how many match in all;
 * the page and the count are read at once.
 */
export async function findPage<D, R>(
  model: Model<D>,
  filter: Record<string, unknown>,
  page: Page,
  toRecord: (d: D) => R,
): Promise<{ items: R[]; total: number }> {
  const [docs, total] = await Promise.all([
    model.find(filter).sort({ created_at: -1, _id: -1 }).skip(page.skip).limit(page.limit).lean<D[]>(),
    model.countDocuments(filter),
  ]);
  return { items: docs.map(toRecord), total };
}
