export type { Owner } from '@platform/db';

/** What a document came from. */
export const DOCUMENT_KINDS = ['text', 'pdf', 'txt', 'docx', 'website'] as const;
export type DocumentKind = (typeof DOCUMENT_KINDS)[number];

/** The file kinds of `POST /v3/train/{kind}/`. */
export const FILE_KINDS = ['pdf', 'txt', 'docx'] as const;
export type FileKind = (typeof FILE_KINDS)[number];

/** How texts are cut into chunks. */
export interface Chunking {
  chunk_size: number;
  chunk_overlap: number;
}
