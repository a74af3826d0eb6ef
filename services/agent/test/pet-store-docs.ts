/** The pet store of @platform/testing described three ways: OpenAPI 3.0, OpenAPI 3.1 and Swagger 2.0. */

const pathParam = { name: 'petId', in: 'path', required: true, description: 'The pet id' };
const queryParams = [
  { name: 'limit', in: 'query', required: false, description: 'How many pets at most' },
  { name: 'tag', in: 'query', required: false },
];

/** OpenAPI 3.0: components, a path-level parameter, a request body by $ref, an operation without operationId. */
export function openApi30(baseUrl: string) {
  return {
    openapi: '3.0.3',
    info: { title: 'Pet store', version: '1.0.0' },
    servers: [{ url: baseUrl }],
    paths: {
      '/pets': {
        get: {
          operationId: 'listPets',
          summary: 'List pets',
          parameters: [
            { ...queryParams[0], schema: { type: 'integer', minimum: 1, maximum: 100 } },
            { ...queryParams[1], schema: { type: 'string' } },
          ],
          responses: {
            '200': {
              description: 'Pets',
              content: {
                'application/json': { schema: { type: 'array', items: { $ref: '#/components/schemas/Pet' } } },
              },
            },
          },
        },
        post: {
          operationId: 'createPet',
          summary: 'Create a pet',
          requestBody: {
            required: true,
            content: { 'application/json': { schema: { $ref: '#/components/schemas/NewPet' } } },
          },
          responses: { '201': { description: 'Created' } },
        },
      },
      '/pets/{petId}': {
        parameters: [{ ...pathParam, schema: { type: 'integer' } }],
        get: {
          operationId: 'getPet',
          summary: 'Get one pet',
          responses: { '200': { description: 'A pet' }, '404': { description: 'Not found' } },
        },
        delete: { summary: 'Delete a pet', responses: { '204': { description: 'Deleted' } } },
      },
      '/hang': { get: { operationId: 'hang', responses: { '200': { description: 'Never' } } } },
      '/big': {
        get: {
          operationId: 'big',
          parameters: [{ name: 'bytes', in: 'query', required: true, schema: { type: 'integer' } }],
          responses: { '200': { description: 'Large' } },
        },
      },
    },
    components: {
      schemas: {
        NewPet: {
          type: 'object',
          required: ['name'],
          properties: { name: { type: 'string', minLength: 1 }, tag: { type: 'string', nullable: true } },
        },
        Pet: {
          allOf: [{ $ref: '#/components/schemas/NewPet' }, { type: 'object', properties: { id: { type: 'integer' } } }],
        },
      },
    },
  };
}

/** OpenAPI 3.1: JSON Schema 2020-12 types (`["string", "null"]`), `$ref` with a sibling description. */
export function openApi31(baseUrl: string) {
  return {
    openapi: '3.1.0',
    info: { title: 'Pet store', version: '1.0.0' },
    servers: [
      {
        url: '{scheme}://{host}',
        variables: { scheme: { default: baseUrl.split('://')[0] }, host: { default: baseUrl.split('://')[1] } },
      },
    ],
    paths: {
      '/pets': {
        get: {
          operationId: 'listPets',
          summary: 'List pets',
          parameters: [
            { ...queryParams[0], schema: { type: 'integer', minimum: 1 } },
            { ...queryParams[1], schema: { type: ['string', 'null'] } },
          ],
          responses: { '200': { description: 'Pets' } },
        },
        post: {
          operationId: 'createPet',
          requestBody: {
            required: true,
            content: {
              'application/json': { schema: { $ref: '#/components/schemas/NewPet', description: 'The new pet' } },
            },
          },
          responses: { '201': { description: 'Created' } },
        },
      },
      '/pets/{petId}': {
        get: {
          operationId: 'getPet',
          parameters: [{ ...pathParam, schema: { type: 'integer' } }],
          responses: { '200': { description: 'A pet' } },
        },
      },
    },
    components: {
      schemas: {
        NewPet: {
          type: 'object',
          required: ['name'],
          properties: { name: { type: 'string' }, tag: { type: ['string', 'null'] } },
        },
      },
    },
  };
}

/** Swagger 2.0: host + basePath, `definitions`, parameter types on the parameter, a body parameter. */
export function swagger20(baseUrl: string) {
  const { protocol, host } = new URL(baseUrl);
  return {
    swagger: '2.0',
    info: { title: 'Pet store', version: '1.0.0' },
    host,
    basePath: '/',
    schemes: [protocol.replace(':', '')],
    paths: {
      '/pets': {
        get: {
          operationId: 'listPets',
          summary: 'List pets',
          parameters: [
            { ...queryParams[0], type: 'integer', minimum: 1 },
            { ...queryParams[1], type: 'string' },
          ],
          responses: {
            '200': { description: 'Pets', schema: { type: 'array', items: { $ref: '#/definitions/Pet' } } },
          },
        },
        post: {
          operationId: 'createPet',
          consumes: ['application/json'],
          parameters: [{ name: 'pet', in: 'body', required: true, schema: { $ref: '#/definitions/NewPet' } }],
          responses: { '201': { description: 'Created' } },
        },
      },
      '/pets/{petId}': {
        get: {
          operationId: 'getPet',
          parameters: [{ ...pathParam, type: 'integer' }],
          responses: { '200': { description: 'A pet' } },
        },
      },
    },
    definitions: {
      NewPet: { type: 'object', required: ['name'], properties: { name: { type: 'string' }, tag: { type: 'string' } } },
      Pet: {
        type: 'object',
        properties: { id: { type: 'integer' }, name: { type: 'string' }, tag: { type: 'string' } },
      },
    },
  };
}
