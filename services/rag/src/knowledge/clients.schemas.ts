/**
 * What the knowledge base reads of the other services' answers, checked on every answer by the internal-service
 * client: the OCR service's extraction (`POST /extract`, its OpenAPI document's ExtractionResult) and the graph
 * service's website training (`POST /v4/knowledge_graph/website/`, TrainResult) and deletes (`GraphDeleted`).
 */
import Joi from 'joi';

import type { GraphDeletion, GraphTraining, OcrExtraction } from './clients.schemas.types';

export const ocrExtraction = Joi.object<OcrExtraction>({
  data: Joi.object()
    .pattern(
      Joi.string(),
      Joi.object({ page: Joi.number().integer().min(1).required(), content: Joi.string().allow('').required() }),
    )
    .required(),
  page_count: Joi.number().integer().min(0).required(),
}).meta({ className: 'OcrExtraction' });

export const graphTraining = Joi.object<GraphTraining>({
  pages_trained: Joi.number().integer().min(0).required(),
}).meta({ className: 'GraphTraining' });

export const graphDeletion = Joi.object<GraphDeletion>({
  deleted: Joi.number().integer().min(0).required(),
}).meta({ className: 'GraphDeletion' });
