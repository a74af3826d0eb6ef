/**
 * The mass-assignment suite catches a broken promise: with the validator told to keep unknown fields (the guard
 * every route relies on, switched off for this file only), the same check finds server-owned fields answered back
 * or stored.
 */
import type * as ValidateLib from '../../libs/http/src/validate';
import { ignoreThisFilesResponses } from '../openapi/response-recorder';
import { massAssignmentFindings } from './extra-fields';
import { startRaiWorld, type SecurityWorld } from './worlds';

type ValidateModule = typeof ValidateLib;

// The validator's own module is replaced, so that every caller of it (route tables included) keeps unknown fields.
jest.mock('../../libs/http/src/validate', () => {
  const actual = jest.requireActual<ValidateModule>('../../libs/http/src/validate');
  return {
    ...actual,
    validate: (
      schema: { validate(value: unknown, opts: object): { error?: unknown; value: unknown } },
      value: unknown,
      location: Parameters<ValidateModule['validate']>[2],
    ) => {
      const kept = schema.validate(value, { allowUnknown: true, stripUnknown: false, convert: true });
      return kept.error
        ? actual.validate(schema as Parameters<ValidateModule['validate']>[0], value, location)
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
