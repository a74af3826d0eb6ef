import Joi from 'joi';

import type { OcrMode } from './extraction.types';

/** Organization ids are opaque strings (UUIDs in practice); bounded so that no query echoes a megabyte. */
const organizationId = Joi.string().trim().min(1).max(200);

export const extractQuery = Joi.object<{ organization_id: string; ocr: OcrMode }>({
  organization_id: organizationId.required(),
  ocr: Joi.string().valid('auto', 'off', 'force').default('auto'),
});

export const readQuery = Joi.object<{ organization_id?: string }>({
  organization_id: organizationId,
});
