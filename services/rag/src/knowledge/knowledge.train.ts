import { newObjectId } from '@platform/db';
import { ValidationError } from '@platform/errors';
import type { UploadedFile } from '@platform/http';
import { chunkTextWithOffsets } from '@platform/retrieval';

import type { RagConfig } from '../rag/rag.types';
import type { ChunkRecord, DocumentRecord } from './document.repository';
import { extractText } from './extractors';
import type { KnowledgeParts } from './knowledge.deps';
import type { TrainFileForm, TrainResult, TrainTextBody, TrainWebsiteBody } from './knowledge.schemas.types';
import type { Chunking, DocumentKind, FileKind, Owner } from './knowledge.types';

/** One item to train: a text and where it came from. */
interface TrainItem {
  text: string;
  source: string;
  metadata: Record<string, unknown>;
}

/** Parses `extra_info` (a JSON object in a form field); 422 at ["body", "extra_info"] otherwise. */
function metadataOf(extraInfo: string | undefined, parse: (value: unknown) => Record<string, unknown>) {
  if (!extraInfo || extraInfo.trim() === '') return {};
  let value: unknown;
  try {
    value = JSON.parse(extraInfo);
  } catch {
    throw ValidationError.field(['body', 'extra_info'], 'extra_info must be a JSON object', 'json_invalid');
  }
  if (value === null) return {};
  return parse(value);
}

/** Vectors of the new chunks in the configuration's store; a failure keeps the chunks for BM25 only. */
async function embed(parts: KnowledgeParts, owner: Owner, config: RagConfig, chunks: ChunkRecord[]): Promise<void> {
  const store = parts.storeOf(config);
  if (!parts.embeddings || !store || chunks.length === 0) return;
  try {
    const embedder = await parts.embeddings.embedder(owner, config.embedding_credential_id, config.embedding_model);
    if (!embedder) return;
    const vectors = await embedder(chunks.map((c) => c.text));
    await store.upsert(
      config.id,
      chunks.map((c, i) => ({ id: c.id, document_id: c.document_id, vector: vectors[i]! })),
    );
  } catch (err) {
    parts.logger.warn('chunks kept for lexical search only: embedding or vector store failed', {
      rag_id: config.id,
      chunks: chunks.length,
      reason: (err as Error).message,
    });
  }
}

/** The knowledge service's training: texts and files cut into chunks and stored, websites crawled by the graph. */
export function createTraining(parts: KnowledgeParts) {
  const { repo, changed } = parts;

  async function store(
    owner: Owner,
    config: RagConfig,
    kind: DocumentKind,
    items: TrainItem[],
    chunking: Chunking,
    locOf: (i: number) => (string | number)[],
  ): Promise<TrainResult> {
    const created_at = parts.clock().toISOString();
    const documents: DocumentRecord[] = [];
    const chunks: ChunkRecord[] = [];
    const empty: number[] = [];
    items.forEach((item, i) => {
      const id = newObjectId();
      const pieces = chunkTextWithOffsets(item.text, chunking.chunk_size, chunking.chunk_overlap);
      if (pieces.length === 0) empty.push(i);
      pieces.forEach((p, ordinal) =>
        chunks.push({ id: newObjectId(), rag_id: config.id, document_id: id, ordinal, ...p, source: item.source }),
      );
      documents.push({
        id,
        rag_id: config.id,
        ...owner,
        source: item.source,
        metadata: item.metadata,
        kind,
        chunks: pieces.length,
        chars: item.text.length,
        created_at,
      });
    });
    if (empty.length > 0)
      throw new ValidationError(
        empty.map((i) => ({ loc: locOf(i), msg: `${items[i]!.source} has no text to train`, type: 'text_empty' })),
      );
    await repo.insert(documents, chunks);
    await embed(parts, owner, config, chunks);
    changed(config.id);
    return {
      message: `${documents.length} document(s) trained`,
      rag_id: config.id,
      documents: documents.map((d) => ({ id: d.id, source: d.source })),
      chunks: chunks.length,
    };
  }

  async function trainTexts(owner: Owner, ragId: string, body: TrainTextBody): Promise<TrainResult> {
    const config = await parts.configOf(owner, ragId);
    return store(owner, config, 'text', body.data, body, (i) => ['body', 'data', i, 'text']);
  }

  async function trainFile(
    owner: Owner,
    ragId: string,
    kind: FileKind,
    upload: UploadedFile,
    form: TrainFileForm,
    parseMetadata: (value: unknown) => Record<string, unknown>,
  ): Promise<TrainResult> {
    const config = await parts.configOf(owner, ragId);
    const extra = metadataOf(form.extra_info, parseMetadata);
    const { text, name } = await extractText({ ocr: parts.ocr }, owner, kind, upload);
    const metadata = {
      ...extra,
      ...(upload.filename ? { filename: upload.filename } : {}),
      ...(form.data_parser ? { data_parser: form.data_parser } : {}),
    };
    return store(owner, config, kind, [{ text, source: name, metadata }], form, () => ['body', 'file']);
  }

  /** One crawl per start URL through the graph service; each URL recorded as a website document. */
  async function trainWebsite(owner: Owner, ragId: string, body: TrainWebsiteBody): Promise<TrainResult> {
    const config = await parts.configOf(owner, ragId);
    const documents: DocumentRecord[] = [];
    for (const url of body.urls) {
      const id = newObjectId();
      const pages = await parts.graph.train(owner, config.id, { ...body, urls: [url] }, id);
      documents.push({
        id,
        rag_id: config.id,
        ...owner,
        source: url,
        metadata: { pages_trained: pages },
        kind: 'website',
        chunks: pages,
        chars: 0,
        created_at: parts.clock().toISOString(),
      });
    }
    await repo.insert(documents, []);
    changed(config.id);
    return {
      message: 'Website trained successfully',
      rag_id: config.id,
      documents: documents.map((d) => ({ id: d.id, source: d.source })),
      chunks: documents.reduce((n, d) => n + d.chunks, 0),
    };
  }

  return { trainTexts, trainFile, trainWebsite };
}
