// Generated from clients.schemas.ts by `pnpm schemas:types` (scripts/schema-types.cjs): edit the schemas, not this file.

export interface GraphDeletion {
  deleted: number;
}

export interface GraphTraining {
  pages_trained: number;
}

export interface OcrExtraction {
  data: {
    [pattern: string]: {
      page: number;
      content: string;
    };
  };
  page_count: number;
}
