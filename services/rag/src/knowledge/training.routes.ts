import { Router, type RequestHandler } from 'express';
import type Joi from 'joi';

import { principalOf } from '@platform/auth';
import { ValidationError } from '@platform/errors';
import {
  inspectInput,
  jsonBodyParser,
  rejectBadJson,
  requireContentType,
  requireJsonContentType,
  toFieldErrors,
  UNSUPPORTED_MULTIPART_TYPE,
  uploadedFile,
  uploadMiddleware,
  validate,
  type Validated,
} from '@platform/http';

import {
  fileForm,
  KNOWLEDGE_LIMITS,
  metadataSchema,
  trainQuery,
  trainTextBody,
  trainWebsiteBody,
} from './knowledge.schemas';
import type { KnowledgeService } from './knowledge.service';
import { FILE_KINDS } from './knowledge.types';

export interface TrainingRouteOptions {
  /** Where uploads wait while they are read (each removed when its request ends). */
  uploadDir: string;
  /** The service's JSON body limit (the website route); the text route has its own, larger one. */
  jsonLimit: string | number;
}

/** Form fields beside the file, and the bytes of one (extra_info is the large one). */
const FORM_FIELDS = 8;
const FORM_FIELD_BYTES = KNOWLEDGE_LIMITS.maxMetadataBytes + 1024;

/** Multipart fields are strings: validated like a query (converted), reported under "body". */
function validateForm<S extends Joi.Schema>(schema: S, value: unknown): Validated<S> {
  const result = schema.validate(value ?? {}, {
    abortEarly: false,
    stripUnknown: true,
    convert: true,
    errors: { wrap: { label: false } },
  });
  if (result.error) throw new ValidationError(toFieldErrors(result.error, 'body'));
  return result.value as Validated<S>;
}

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

/**
 * `POST /v3/train/{text,pdf,txt,docx,website}/`. Mounted as a raw router: it applies the API key check itself,
 * first, then its own body readers (the text route's JSON limit is larger than the service's; uploads are multipart),
 * and checks the rag id is the caller's before an upload is read.
 */
export function createTrainingRoutes(
  knowledge: KnowledgeService,
  auth: RequestHandler,
  opts: TrainingRouteOptions,
): Router {
  const r = Router();
  r.use('/v3/train', auth);
  const json = (limit: string | number) => [requireJsonContentType, jsonBodyParser(limit), rejectBadJson];

  r.post('/v3/train/text', ...json(KNOWLEDGE_LIMITS.textBodyBytes), async (req, res) => {
    const body = validate(trainTextBody, req.body, 'body'); // a missing body is named before a missing query
    const query = validate(trainQuery, req.query, 'query');
    res.json(await knowledge.trainTexts(principalOf(req), query.rag_id, body));
  });

  r.post('/v3/train/website', ...json(opts.jsonLimit), async (req, res) => {
    const body = validate(trainWebsiteBody, req.body, 'body'); // a missing body is named before a missing query
    const query = validate(trainQuery, req.query, 'query');
    res.json(await knowledge.trainWebsite(principalOf(req), query.rag_id, body));
  });

  const multipart = requireContentType(['multipart/form-data'], UNSUPPORTED_MULTIPART_TYPE);
  // The rag id is checked before the upload is read: a wrong request never costs a 25 MiB upload.
  const accept: RequestHandler = async (req, _res, next) => {
    await knowledge.checkConfig(principalOf(req), validate(trainQuery, req.query, 'query').rag_id);
    next();
  };
  const upload = uploadMiddleware({
    dir: opts.uploadDir,
    maxFileBytes: KNOWLEDGE_LIMITS.maxFileBytes,
    maxFields: FORM_FIELDS,
    maxFieldBytes: FORM_FIELD_BYTES,
  });
  for (const kind of FILE_KINDS) {
    r.post(`/v3/train/${kind}`, multipart, accept, upload, async (req, res) => {
      const query = validate(trainQuery, req.query, 'query');
      const form = validateForm(fileForm, req.body);
      const file = uploadedFile(req, `a ${kind.toUpperCase()} file`);
      res.json(await knowledge.trainFile(principalOf(req), query.rag_id, kind, file, form, parseMetadata));
    });
  }
  return r;
}
