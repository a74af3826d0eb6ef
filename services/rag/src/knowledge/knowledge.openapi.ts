/**
 * Route facts of the knowledge base for the rag service's OpenAPI document (`../openapi.ts`): summaries, status codes,
 * the multipart upload. The shapes come from `knowledge.schemas.ts`.
 */
import {
  jsonContent as json,
  jsonSchemaOf,
  notFoundResponse,
  parametersOf,
  refTo,
  withStandardResponses as responses,
} from '@platform/http';

import {
  deletedDocuments,
  documentIds,
  documentList,
  documentsQuery,
  fileForm,
  KNOWLEDGE_LIMITS,
  knowledgePath,
  trainQuery,
  trainResult,
  trainTextBody,
  trainWebsiteBody,
} from './knowledge.schemas';
import { FILE_KINDS } from './knowledge.types';

/** The knowledge base's schemas, for the document's components. */
export const knowledgeSchemas = {
  request: [trainTextBody, trainWebsiteBody, documentIds],
  response: [trainResult, documentList, deletedDocuments],
};

const error = (description: string) => ({ description, ...json({ $ref: '#/components/schemas/Error' }) });
const notFound = notFoundResponse('RAG configuration not found');
const trained = { '200': { description: 'The documents stored and the chunks cut', ...json(refTo(trainResult)) } };
const query = parametersOf(trainQuery, 'query');
const MiB = KNOWLEDGE_LIMITS.maxFileBytes / 1024 / 1024;

const FILE_WHAT = {
  pdf: 'a PDF (its text read by the OCR service; scanned pages are OCR-read)',
  txt: 'a UTF-8 text file',
  docx: 'a Word document (DOCX)',
} as const;

const form = jsonSchemaOf(fileForm, 'request');
const uploadBody = {
  required: true,
  content: {
    'multipart/form-data': {
      schema: {
        type: 'object',
        required: ['file'],
        properties: { file: { type: 'string', format: 'binary' }, ...(form.properties as object) },
      },
    },
  },
};

const fileRoutes = Object.fromEntries(
  FILE_KINDS.map((kind) => [
    `/v3/train/${kind}/`,
    {
      post: {
        summary: `Train a knowledge base with ${FILE_WHAT[kind]}`,
        description:
          `One file field \`file\` (recognised by its bytes, at most ${MiB} MiB) and the form fields chunk_size, chunk_overlap, ` +
          'data_parser and extra_info. The file becomes one document, its name the source.',
        operationId: `train${kind[0]!.toUpperCase()}${kind.slice(1)}`,
        parameters: query,
        requestBody: uploadBody,
        responses: responses({
          ...trained,
          ...notFound,
          '413': error(`The file is over ${MiB} MiB`),
          '415': error(`Not multipart/form-data, or the file is not ${FILE_WHAT[kind].split(' (')[0]}`),
          '422': error('Bad form fields, or a file that cannot be read or holds no text (the reason in `type`)'),
          ...(kind === 'pdf' ? { '503': error('The OCR service is unreachable or busy') } : {}),
        }),
      },
    },
  ]),
);

export const knowledgePaths = {
  '/v3/train/text/': {
    post: {
      summary: 'Train a knowledge base with texts',
      description: `Each item becomes one document cut into chunks (body at most ${KNOWLEDGE_LIMITS.textBodyBytes / 1024 / 1024} MiB).`,
      operationId: 'trainText',
      parameters: query,
      requestBody: { required: true, ...json(refTo(trainTextBody)) },
      responses: responses({ ...trained, ...notFound, '413': error('Body too large') }),
    },
  },
  ...fileRoutes,
  '/v3/train/website/': {
    post: {
      summary: 'Train a knowledge base with websites (the knowledge graph crawl)',
      description:
        'Each start URL is crawled by the graph service into the knowledge graph of the rag id and recorded as a document; `chunks` counts the pages trained.',
      operationId: 'trainWebsite',
      parameters: query,
      requestBody: { required: true, ...json(refTo(trainWebsiteBody)) },
      responses: responses({ ...trained, ...notFound, '503': error('The graph service is unreachable') }),
    },
  },
  '/v3/rag/documents/{rag_id}/': {
    get: {
      summary: 'List the documents of a knowledge base, newest first',
      operationId: 'listRagDocuments',
      parameters: [...parametersOf(knowledgePath, 'path'), ...parametersOf(documentsQuery, 'query')],
      responses: responses({ '200': { description: 'A page', ...json(refTo(documentList)) }, ...notFound }),
    },
  },
  '/v3/rag/{rag_id}/docs/': {
    delete: {
      summary: 'Delete documents of a knowledge base, with their chunks and vectors',
      description: `A JSON array of at most ${KNOWLEDGE_LIMITS.maxDeleteIds} document ids; ids not found are skipped.`,
      operationId: 'deleteRagDocuments',
      parameters: parametersOf(knowledgePath, 'path'),
      requestBody: { required: true, ...json(refTo(documentIds)) },
      responses: responses({
        '200': { description: 'Documents removed', ...json(refTo(deletedDocuments)) },
        ...notFound,
      }),
    },
  },
  '/v3/rag/{rag_id}/reset/': {
    delete: {
      summary: 'Remove every document, chunk and vector of a knowledge base',
      operationId: 'resetRagDocuments',
      parameters: parametersOf(knowledgePath, 'path'),
      responses: responses({
        '200': { description: 'Documents removed', ...json(refTo(deletedDocuments)) },
        ...notFound,
      }),
    },
  },
};
