/** What the route tables of webhooks and schedules share. */
import type { Request } from 'express';
import type Joi from 'joi';

import { jsonContent, jsonSchemaOf } from '@platform/http';

import { bulkPauseIds } from './bulk-pause.schemas';

/** The caller's key, present behind the auth middleware; forwarded to the agent service. */
export const apiKeyOf = (req: Request) => req.get('x-api-key') ?? '';

/** A bulk pause's body as the document writes it: the id list written out (no component of the document). */
export const bulkPauseRequestBody = { required: true, ...jsonContent(jsonSchemaOf(bulkPauseIds, 'request')) };

/**
 * What `POST <path>/regenerate-callback-secret` of a webhook or schedule says of itself (`noun` its name, `view` its
 * object): no body; 200 with the new `callback_secret` (shown in this answer only), 409 when it has no
 * `callback_url`, 404 when it is not the caller's.
 */
export const callbackRotationDoc = (noun: string, view: Joi.Schema) => ({
  summary: 'New callback signing secret (callback_secret), shown in this answer only',
  description:
    'Takes no body. Runs created from now on are signed with the new secret; runs created before keep the secret they were created with.',
  responses: {
    '200': { description: `${noun} with its new callback_secret`, body: view },
    '404': `${noun} not found`,
    '409': `${noun} has no callback_url`,
  },
});
