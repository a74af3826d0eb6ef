// Generated from bulk-pause.schemas.ts by `pnpm schemas:types` (scripts/schema-types.cjs): edit the schemas, not this file.

export type BulkPauseIds = string[];
