/** The completion-callback fields every resource that runs something shares (webhooks, schedules of both kinds). */
import Joi from 'joi';

import { httpUrlField } from '@platform/http';

/** `string | null`: the generated type of a nullable string. */
const NULLABLE_STRING = { baseType: 'string | null' };

const CALLBACK_URL_DESCRIPTION =
  'Where the platform POSTs {type: "execution.ended", data: <execution>} when a run ends, signed per Standard Webhooks ' +
  'with callback_secret (http or https, at most 2048 characters). Null: no callback. A run keeps the target it was created with. ' +
  'A literal loopback, private or link-local address not in OUTBOUND_ALLOW_HOSTS → 422 (type url.refused).';

/** `callback_url` of a create or PATCH body: a URL, or null for none (PATCH: null removes it and its secret). */
export const callbackUrlInput = httpUrlField().allow(null).description(CALLBACK_URL_DESCRIPTION).meta(NULLABLE_STRING);

/** The callback keys of a resource as a client sees it. */
export const callbackViewKeys = {
  callback_url: httpUrlField().allow(null).required().description(CALLBACK_URL_DESCRIPTION).meta(NULLABLE_STRING),
  callback_secret: Joi.string()
    .pattern(/^whsec_/)
    .description(
      'whsec_ + base64 of the signing key of the callbacks. Present only in the answer of the request that generated it ' +
        '(a create or PATCH that set the first callback_url, and regenerate-callback-secret); never shown again.',
    ),
};
