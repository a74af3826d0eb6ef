/**
 * What the graph service reads of a RAG configuration (`GET /v3/rag/{id}/`, the rag service's OpenAPI document,
 * component RagConfig): checked on every answer by the internal-service client.
 */
import Joi from 'joi';

import type { RagConfig } from './rag.schemas.types';

export const ragConfig = Joi.object<RagConfig>({
  id: Joi.string().required(),
  llm_credential_id: Joi.string().required(),
  embedding_credential_id: Joi.string().required(),
  llm_model: Joi.string().required(),
  embedding_model: Joi.string().required(),
  meta_data: Joi.object().unknown(true).required(),
}).meta({ className: 'RagConfig' });
