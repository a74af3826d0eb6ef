import type { RequestHandler } from 'express';

import { principalOf } from '@platform/auth';
import { ValidationError } from '@platform/errors';
import {
  inspectInput,
  jsonBodyParser,
  jsonContent,
  parametersOf,
  rejectBadJson,
  requireContentType,
  requireJsonContentType,
  route,
  toFieldErrors,
  UNSUPPORTED_MULTIPART_TYPE,
  uploadedFile,
  uploadMiddleware,
  validate,
  type Route,
} from '@platform/http';

import {
  fileForm,
  KNOWLEDGE_LIMITS,
  metadataSchema,
  trainQuery,
  trainResult,
  trainTextBody,
  trainWebsiteBody,
} from './knowledge.schemas';
import type { KnowledgeService } from './knowledge.service';
import { FILE_KINDS, type FileKind } from './knowledge.types';

export interface TrainingRouteOptions {
  /** Where uploads wait while they are read (each removed when its request ends). */
  uploadDir: string;
  /** The service's JSON body limit (the website route); the text route has its own, larger one. */
  jsonLimit: string | number;
}

/** What the training routes need: the knowledge base and how bodies are read. */
export interface TrainingRouteDeps extends TrainingRouteOptions {
  knowledge: KnowledgeService;
}

/** Form fields beside the file, and the bytes of one (extra_info is the large one). */
const FORM_FIELDS = 8;
const FORM_FIELD_BYTES = KNOWLEDGE_LIMITS.maxMetadataBytes + 1024;
const MiB = KNOWLEDGE_LIMITS.maxFileBytes / 1024 / 1024;

/** `extra_info` parsed: checked as metadata (size, depth, no U+0000), else 422 at ["body", "extra_info"]. */
function parseMetadata(value: unknown): Record<string, unknown> {
  const faults = inspectInput(value, 'body');
  if (faults.length > 0) throw new ValidationError(faults.map((f) => ({ ...f, loc: ['body', 'extra_info'] })));
  const result = metadataSchema.validate(value, { errors: { wrap: { label: false } } });
  if (result.error) {
    const [first] = toFieldErrors(result.error, 'body');
    throw ValidationError.field(['body', 'extra_info'], first!.msg, first!.type);
  }
  return result.value as Record<string, unknown>;
}

const NOT_FOUND = 'RAG configuration not found';
const trained = { description: 'The documents stored and the chunks cut', body: trainResult };
/**
 * `?rag_id=` of the JSON routes: documented here, validated by the handler after the body (a missing body is named
 * before a missing query), which the table's validation order (query, then body) would invert.
 */
const queryDoc = { parameters: parametersOf(trainQuery, 'query') };
const jsonBody = (limit: string | number): RequestHandler[] => [
  requireJsonContentType,
  jsonBodyParser(limit),
  rejectBadJson,
];

const FILE_WHAT = {
  pdf: 'a PDF (its text read by the OCR service; scanned pages are OCR-read)',
  txt: 'a UTF-8 text file',
  docx: 'a Word document (DOCX)',
} as const;

/** The upload's readers: multipart only; the rag id checked before the upload is read (a wrong request never costs 25 MiB). */
function uploadOf({ knowledge, uploadDir }: TrainingRouteDeps): RequestHandler[] {
  const accept: RequestHandler = async (req, _res, next) => {
    await knowledge.checkConfig(principalOf(req), validate(trainQuery, req.query, 'query').rag_id);
    next();
  };
  return [
    requireContentType(['multipart/form-data'], UNSUPPORTED_MULTIPART_TYPE),
    accept,
    uploadMiddleware({
      dir: uploadDir,
      maxFileBytes: KNOWLEDGE_LIMITS.maxFileBytes,
      maxFields: FORM_FIELDS,
      maxFieldBytes: FORM_FIELD_BYTES,
    }),
  ];
}

const fileRoute = (kind: FileKind) =>
  route({
    method: 'post',
    path: `/v3/train/${kind}/`,
    summary: `Train a knowledge base with ${FILE_WHAT[kind]}`,
    description:
      `One file field \`file\` (recognised by its bytes, at most ${MiB} MiB) and the form fields chunk_size, chunk_overlap, ` +
      'data_parser and extra_info. The file becomes one document, its name the source.',
    operationId: `train${kind[0]!.toUpperCase()}${kind.slice(1)}`,
    query: trainQuery,
    body: fileForm,
    multipart: { file: 'file' },
    responses: {
      '200': trained,
      '404': NOT_FOUND,
      '413': `The file is over ${MiB} MiB`,
      '415': `Not multipart/form-data, or the file is not ${FILE_WHAT[kind].split(' (')[0]}`,
      '422': {
        description: 'Bad form fields, or a file that cannot be read or holds no text (the reason in `type`)',
        content: jsonContent({ $ref: '#/components/schemas/ValidationError' }).content,
      },
      ...(kind === 'pdf' ? { '503': 'The OCR service is unreachable or busy' } : {}),
    },
    use: uploadOf,
    handle: ({ knowledge }: TrainingRouteDeps, { req, query, body }) => {
      const file = uploadedFile(req, `a ${kind.toUpperCase()} file`);
      return knowledge.trainFile(principalOf(req), query.rag_id, kind, file, body, parseMetadata);
    },
  });

/**
 * `POST /v3/train/{text,pdf,txt,docx,website}/`. Served behind the API key check alone (app.ts mounts them as raw
 * routes): each applies its own body readers (the text route's JSON limit is larger than the service's; uploads are
 * multipart), and an upload's rag id is checked to be the caller's before the upload is read.
 */
export const trainingRoutes: Route<TrainingRouteDeps>[] = [
  route({
    method: 'post',
    path: '/v3/train/text/',
    summary: 'Train a knowledge base with texts',
    description: `Each item becomes one document cut into chunks (body at most ${KNOWLEDGE_LIMITS.textBodyBytes / 1024 / 1024} MiB).`,
    operationId: 'trainText',
    body: trainTextBody,
    responses: { '200': trained, '404': NOT_FOUND, '413': 'Body too large' },
    openapi: queryDoc,
    use: () => jsonBody(KNOWLEDGE_LIMITS.textBodyBytes),
    handle: ({ knowledge }: TrainingRouteDeps, { req, body }) => {
      const { rag_id: ragId } = validate(trainQuery, req.query, 'query');
      return knowledge.trainTexts(principalOf(req), ragId, body);
    },
  }),
  ...FILE_KINDS.map(fileRoute),
  route({
    method: 'post',
    path: '/v3/train/website/',
    summary: 'Train a knowledge base with websites (the knowledge graph crawl)',
    description:
      'Each start URL is crawled by the graph service into the knowledge graph of the rag id and recorded as a document; `chunks` counts the pages trained.',
    operationId: 'trainWebsite',
    body: trainWebsiteBody,
    responses: { '200': trained, '404': NOT_FOUND, '503': 'The graph service is unreachable' },
    openapi: queryDoc,
    use: ({ jsonLimit }: TrainingRouteDeps) => jsonBody(jsonLimit),
    handle: ({ knowledge }: TrainingRouteDeps, { req, body }) => {
      const { rag_id: ragId } = validate(trainQuery, req.query, 'query');
      return knowledge.trainWebsite(principalOf(req), ragId, body);
    },
  }),
];
