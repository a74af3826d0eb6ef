import { modelFor, mongoose, type Connection, type Model } from '@platform/db';

import type { ExtractionRecord } from './extraction.types';

/** The stored shape: the record's fields, with the ObjectId and a Date. */
export interface ExtractionDoc extends Omit<ExtractionRecord, 'id' | 'created_at'> {
  _id: mongoose.Types.ObjectId;
  created_at: Date;
}

const extractionSchema = new mongoose.Schema<ExtractionDoc>(
  {
    user_id: { type: String, required: true },
    org_id: { type: String, required: true },
    filename: { type: String, default: null },
    size_bytes: { type: Number, required: true },
    ocr_mode: { type: String, required: true },
    pages: { type: [String], default: [] },
    ocr_pages: { type: [Number], default: [] },
    total_actions: { type: Number, required: true },
    created_at: { type: Date, required: true },
  },
  { versionKey: false },
);
extractionSchema.index({ org_id: 1, created_at: -1 });

export function extractionModel(conn: Connection): Model<ExtractionDoc> {
  return modelFor(conn, 'Extraction', extractionSchema, 'extractions');
}
