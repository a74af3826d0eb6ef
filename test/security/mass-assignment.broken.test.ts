/**
 * The mass-assignment suite catches a broken promise: with the validator told to keep unknown fields (the guard
 * every route relies on, switched off for this file only), the same check finds server-owned fields answered back
 * or stored.
 */
import type * as HttpLib from '@platform/http';

import { ignoreThisFilesResponses } from '../openapi/response-recorder';
import { massAssignmentFindings } from './extra-fields';
import { startRaiWorld, type SecurityWorld } from './worlds';

jest.mock('@platform/http', () => {
  const actual = jest.requireActual<typeof HttpLib>('@platform/http');
  return {
    ...actual,
    validate: (
      schema: { validate(value: unknown, opts: object): { error?: unknown; value: unknown } },
      value: unknown,
      location: Parameters<typeof actual.validate>[2],
    ) => {
      const kept = schema.validate(value, { allowUnknown: true, stripUnknown: false, convert: true });
      return kept.error
        ? actual.validate(schema as Parameters<typeof actual.validate>[0], value, location)
        : kept.value;
    },
  };
});

// The validator keeps unknown fields here, so answers carry keys the document does not list: that is what this file
// looks for, not a document mismatch.
ignoreThisFilesResponses();

let world: SecurityWorld;
beforeAll(async () => {
  world = await startRaiWorld();
});
afterAll(async () => {
  await world?.close();
});

it('reports the extra fields once the validator keeps unknown fields', async () => {
  const found = await massAssignmentFindings(world);
  expect(found.length).toBeGreaterThan(0);
  expect(found.join('\n')).toMatch(/mallory/);
});
