// Generated from knowledge-base.schemas.ts by `pnpm schemas:types` (scripts/schema-types.cjs): edit the schemas, not this file.

export interface Knowledge {
  results: {
    text: string;
    url: string;
    title: string;
    score: number;
    /**
     * Unknown Property
     */
    [x: string]: unknown;
  }[];
  facts: {
    source: string;
    relation: string;
    target: string;
    urls: string[];
    /**
     * Unknown Property
     */
    [x: string]: unknown;
  }[];
}

export interface RagSeen {
  id: string;
}
