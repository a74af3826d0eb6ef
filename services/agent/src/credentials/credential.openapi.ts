/** OpenAPI description of the /v3/providers/credentials routes, part of the service's /openapi.json. */
import { jsonContent as json, notFoundResponse, withStandardResponses as responses } from '@platform/http';

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
const paging = [
  { name: 'skip', in: 'query', schema: { type: 'integer', minimum: 0, default: 0 } },
  { name: 'limit', in: 'query', schema: { type: 'integer', minimum: 1, maximum: 100, default: 50 } },
];
const credentialId = { name: 'credential_id', in: 'path', required: true, schema: { type: 'string' } };
const typeSchema = { type: 'string', pattern: '^[A-Za-z0-9_.:-]+$', minLength: 1, maxLength: 50 };
const type = { name: 'type', in: 'path', required: true, schema: typeSchema, description: 'e.g. llm, tool, guardrail' };
const providerId = {
  name: 'provider_id',
  in: 'path',
  required: true,
  schema: { type: 'string', minLength: 1, maxLength: 100 },
  description: 'Compared case-insensitively',
};
const notFound = notFoundResponse('Credential not found');
const metaData = { type: 'object', additionalProperties: true, description: 'Free-form, stored and returned as sent' };
const list = { '200': { description: 'Credentials, secrets masked', ...json(ref('CredentialList')) } };

export const credentialSchemas = {
  CredentialBody: {
    type: 'object',
    required: ['name', 'provider_id', 'credentials'],
    properties: {
      name: { type: 'string' },
      provider_id: { type: 'string' },
      type: { ...typeSchema, type: ['string', 'null'], default: 'llm' },
      credentials: {
        type: 'object',
        required: ['api_key'],
        properties: { api_key: { type: 'string' }, base_url: { type: ['string', 'null'], format: 'uri' } },
      },
      meta_data: { ...metaData, type: ['object', 'null'], default: {} },
    },
  },
  CredentialUpdate: {
    type: 'object',
    description: 'Every field optional. user_id, credential_id and provider_id in the body are ignored.',
    properties: {
      name: { type: ['string', 'null'] },
      type: { ...typeSchema, type: ['string', 'null'] },
      credentials: {
        type: ['object', 'null'],
        description: 'Merged key by key: a key that is missing or "***" keeps the stored value.',
        properties: {
          api_key: { type: ['string', 'null'] },
          base_url: { type: ['string', 'null'], description: 'null clears it' },
        },
      },
      meta_data: { ...metaData, type: ['object', 'null'], description: 'Replaces the stored meta_data' },
    },
  },
  Credential: {
    type: 'object',
    properties: {
      credential_id: { type: 'string' },
      name: { type: 'string' },
      provider_id: { type: 'string' },
      type: { type: 'string' },
      credentials: {
        type: 'object',
        properties: { api_key: { type: 'string', enum: ['***'] }, base_url: { type: ['string', 'null'] } },
      },
      meta_data: metaData,
      created_at: { type: 'string', format: 'date-time' },
      updated_at: { type: ['string', 'null'], format: 'date-time' },
    },
  },
  CredentialList: {
    type: 'object',
    properties: { credentials: { type: 'array', items: ref('Credential') }, total: { type: 'integer' } },
  },
  OpenedCredential: {
    type: 'object',
    properties: {
      credential_id: { type: 'string' },
      provider_id: { type: 'string' },
      api_key: { type: 'string', description: 'The unsealed key' },
      base_url: { type: ['string', 'null'] },
    },
  },
  CredentialUpdated: {
    type: 'object',
    properties: { message: { type: 'string' }, credential_id: { type: 'string' } },
  },
};

export const credentialPaths = {
  '/v3/providers/credentials': {
    post: {
      summary: 'Store a provider credential (encrypted at rest)',
      requestBody: json(ref('CredentialBody')),
      responses: responses({
        '201': {
          description: 'Created',
          ...json({ type: 'object', properties: { credential_id: { type: 'string' } } }),
        },
      }),
    },
    get: { summary: "List the caller's credentials, secrets masked", parameters: paging, responses: responses(list) },
  },
  '/v3/providers/credentials/type/{type}': {
    get: {
      summary: "The caller's credentials of a type, secrets masked",
      parameters: [type, ...paging],
      responses: responses(list),
    },
  },
  '/v3/providers/credentials/user/{type}/{provider_id}': {
    get: {
      summary: "The caller's credentials of a type and provider, secrets masked",
      parameters: [type, providerId, ...paging],
      responses: responses(list),
    },
  },
  '/v3/providers/credentials/{credential_id}': {
    get: {
      summary: 'Get a credential, secret masked',
      parameters: [credentialId],
      responses: responses({ '200': { description: 'Credential', ...json(ref('Credential')) }, ...notFound }),
    },
    put: {
      summary: 'Update a credential (merge; masked values keep the stored secret)',
      parameters: [credentialId],
      requestBody: json(ref('CredentialUpdate')),
      responses: responses({ '200': { description: 'Updated', ...json(ref('CredentialUpdated')) }, ...notFound }),
    },
    delete: {
      summary: 'Delete a credential',
      parameters: [credentialId],
      responses: responses({ '204': { description: 'Deleted' }, ...notFound }),
    },
  },
  '/v3/providers/credentials/{credential_id}/open': {
    post: {
      summary: "Open a credential: its key unsealed, for another service calling the provider on the owner's behalf",
      description:
        "Internal: only the platform's services call it (x-internal-secret + x-on-behalf-of-user/-org); an API key gets 404.",
      parameters: [credentialId],
      responses: responses({
        '200': { description: 'The credential, key unsealed', ...json(ref('OpenedCredential')) },
        ...notFound,
      }),
    },
  },
};
