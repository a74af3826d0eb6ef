// Generated from crawl.schemas.ts by `pnpm schemas:types` (scripts/schema-types.cjs): edit the schemas, not this file.

export interface CrawlError {
  url: string;
  reason: string;
}
