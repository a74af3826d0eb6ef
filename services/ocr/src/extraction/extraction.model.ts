import { modelFor, mongoose, type Connection, type StoredDoc } from '@platform/db';

import { OCR_MODES } from './worker/protocol';

const extractionSchema = new mongoose.Schema(
  {
    user_id: { type: String, required: true },
    org_id: { type: String, required: true },
    filename: { type: String, default: null },
    size_bytes: { type: Number, required: true },
    ocr_mode: { type: String, enum: OCR_MODES, required: true },
    /** Text of page i + 1 at index i. */
    pages: { type: [String], default: [] },
    ocr_pages: { type: [Number], default: [] },
    total_actions: { type: Number, required: true },
    created_at: { type: Date, required: true },
  },
  { versionKey: false },
);
// Read back by `_id` alone (within the organization that made it): no other index.

/** A stored extraction, as the schema types it. */
export type ExtractionDoc = StoredDoc<typeof extractionSchema>;

export function extractionModel(conn: Connection) {
  return modelFor(conn, 'Extraction', extractionSchema, 'extractions');
}
