import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { commonEnv, Joi, type CommonConfig } from '@platform/config';
import { providerCallerEnv, type ProviderCallerConfig } from '@platform/providers';

/** Every environment variable the rag service reads. */
export const configSchema = Joi.object<RagServiceConfig>({
  PORT: Joi.number().port().default(3003).description('HTTP port.'),
  MONGODB_DB: Joi.string().default('rag').description("The rag service's own database."),
  INTERNAL_SERVICE_SECRET: Joi.string()
    .allow('')
    .min(32)
    .description(
      "Shared secret (32+ chars, the agent service's) with which rag asks the agent service on behalf of the caller. " +
        'Unset: credential ids in our format cannot be checked and such requests answer 503.',
    ),
  GRAPH_URL: Joi.string()
    .uri({ scheme: ['http', 'https'] })
    .default('http://127.0.0.1:3006')
    .description(
      'Base URL of the graph service, which answers GET /v3/rag/{id}/retrieve/ (with INTERNAL_SERVICE_SECRET); its host is always allowed.',
    ),
  GRAPH_TIMEOUT_MS: Joi.number()
    .integer()
    .min(100)
    .max(60000)
    .default(10000)
    .description('Time limit of one retrieval call to the graph service.'),
  GRAPH_TRAIN_TIMEOUT_MS: Joi.number()
    .integer()
    .min(1000)
    .max(3_600_000)
    .default(600_000)
    .description('Time limit of one website training (POST /v3/train/website/: one graph crawl per start URL).'),
  OCR_URL: Joi.string()
    .uri({ scheme: ['http', 'https'] })
    .default('http://127.0.0.1:3007')
    .description(
      'Base URL of the OCR service, which reads the text of PDFs trained with POST /v3/train/pdf/ (with INTERNAL_SERVICE_SECRET); its host is always allowed.',
    ),
  OCR_TIMEOUT_MS: Joi.number()
    .integer()
    .min(1000)
    .max(900_000)
    .default(180_000)
    .description('Time limit of one PDF extraction by the OCR service (above its DOCUMENT_TIMEOUT_MS).'),
  VECTOR_STORE_URI: Joi.string()
    .default('data/vectors')
    .description(
      'Where chunk vectors are kept (LanceDB): a directory (relative to the working directory) or an object-store URI (s3://bucket/path, gs://, az://) that replicas share.',
    ),
  EMBEDDING_TIMEOUT_MS: Joi.number()
    .integer()
    .min(1000)
    .max(300_000)
    .default(30_000)
    .description("Time limit of one embeddings call to the provider of a configuration's embedding credential."),
  UPLOAD_DIR: Joi.string()
    .default(join(tmpdir(), 'rag-uploads'))
    .description('Where uploaded files are kept while they are read; each is removed when its request ends.'),
  ...providerCallerEnv({
    agent: 'asked whether a credential id of ours belongs to the caller, and which opens embedding credentials',
    allowHosts:
      "AGENT_URL's host is always allowed (and so are GRAPH_URL's and OCR_URL's). Embedding providers on private addresses must be listed here.",
  }),
  ...commonEnv,
});

export interface RagServiceConfig extends CommonConfig, ProviderCallerConfig {
  PORT: number;
  MONGODB_DB: string;
  INTERNAL_SERVICE_SECRET?: string;
  GRAPH_URL: string;
  GRAPH_TIMEOUT_MS: number;
  GRAPH_TRAIN_TIMEOUT_MS: number;
  OCR_URL: string;
  OCR_TIMEOUT_MS: number;
  VECTOR_STORE_URI: string;
  EMBEDDING_TIMEOUT_MS: number;
  UPLOAD_DIR: string;
}
