import { isObjectIdHex, type Connection } from '@platform/db';

import { extractionModel, type ExtractionDoc } from './extraction.model';
import type { ExtractionRecord } from './extraction.types';

function toRecord(d: ExtractionDoc): ExtractionRecord {
  return {
    id: d._id.toHexString(),
    user_id: d.user_id,
    org_id: d.org_id,
    filename: d.filename ?? null,
    size_bytes: d.size_bytes,
    ocr_mode: d.ocr_mode,
    pages: [...d.pages],
    ocr_pages: [...d.ocr_pages],
    total_actions: d.total_actions,
    created_at: d.created_at.toISOString(),
  };
}

/** Extraction results, one document per uploaded PDF; read back only within the organization that made it. */
export function createExtractionRepository(conn: Connection) {
  const Extraction = extractionModel(conn);
  return {
    async create(fields: Omit<ExtractionRecord, 'id' | 'created_at'>, now: Date): Promise<ExtractionRecord> {
      const doc = await Extraction.create({ ...fields, created_at: now });
      return toRecord(doc.toObject());
    },
    async get(orgId: string, id: string): Promise<ExtractionRecord | null> {
      if (!isObjectIdHex(id)) return null;
      const d = await Extraction.findOne({ _id: id, org_id: orgId }).lean();
      return d ? toRecord(d) : null;
    },
  };
}

export type ExtractionRepository = ReturnType<typeof createExtractionRepository>;
