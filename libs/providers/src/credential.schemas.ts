/**
 * What a service reads of an opened credential (`POST /v3/providers/credentials/{id}/open`, the agent
 * service's OpenAPI document, component OpenedCredential): checked on every answer by the internal-service client.
 */
import Joi from 'joi';

import type { OpenedCredential } from './credential.schemas.types';

/** A credential with its key unsealed. Held in memory for the call it serves; never logged. */
export const openedCredential = Joi.object<OpenedCredential>({
  credential_id: Joi.string().required(),
  provider_id: Joi.string().required(),
  /** Null on a credential of provider-specific keys only (an AWS credential). */
  api_key: Joi.string().min(1).allow(null).required(),
  base_url: Joi.string().allow(null).required(),
}).meta({ className: 'OpenedCredential' });
