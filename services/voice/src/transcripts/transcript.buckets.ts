/**
 * Time buckets of `started_at`. FerretDB serves only top-level equality filters from an index (a range, sort or skip
 * runs over every matching row, decoding each), so an organization's (or agent's) transcripts are found by the
 * equality key of one 15-minute bucket, and tallies say how many each holds: the organization's (or agent's) tally
 * counts per UTC day, each day's tally per bucket. A page reads two tallies and the few buckets its ranks fall in;
 * `total` is a sum of counts.
 */
export const BUCKET_MS = 15 * 60_000;
export const DAY_MS = 86_400_000;

/** The bucket (15-minute slot number since the epoch) of an instant. */
export const bucketOf = (at: Date | number): number =>
  Math.floor((typeof at === 'number' ? at : at.getTime()) / BUCKET_MS);
/** The UTC day number of an instant. */
export const dayOf = (at: Date | number): number => Math.floor((typeof at === 'number' ? at : at.getTime()) / DAY_MS);

/** Equality keys of a transcript's bucket (JSON arrays, so no organization or agent id can run into another). */
export const orgBucketKey = (org: string, bucket: number) => JSON.stringify([org, bucket]);
export const agentBucketKey = (org: string, agent: string, bucket: number) => JSON.stringify([org, agent, bucket]);

/** The tally of an organization (or one of its agents): totals, and counts per day. */
export const tallyId = (org: string, agent?: string) =>
  JSON.stringify(agent === undefined ? ['org', org] : ['agent', org, agent]);
/** The tally of one day of an organization (or agent): counts per bucket. */
export const dayTallyId = (org: string, day: number, agent?: string) =>
  JSON.stringify(agent === undefined ? ['org-day', org, day] : ['agent-day', org, agent, day]);
