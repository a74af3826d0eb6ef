/** Sibling operations: declared once, kept for the document check, and turned into the call's method, path and schema. */
import Joi from 'joi';

import { operationCall, siblingOperation, siblingOperations } from '@platform/service-client';

const thing = Joi.object<{ id: string }>({ id: Joi.string().required() });
const READ = siblingOperation({ service: 'rag', method: 'GET', path: '/v3/rag/{config_id}/', response: thing });

test('a declared operation is kept for the check against the callee document', () => {
  expect(siblingOperations()).toContain(READ);
});

test("a call fills the path template, each value encoded, and carries the operation's method and schema", () => {
  expect(operationCall(READ, { config_id: 'a b/c' })).toEqual({
    method: 'GET',
    path: '/v3/rag/a%20b%2Fc/',
    response: thing,
  });
});

test('a template value left out is a programming error, never a request to a wrong path', () => {
  // @ts-expect-error: the compiler asks for the template's values too
  expect(() => operationCall(READ)).toThrow('/v3/rag/{config_id}/: no value for {config_id}');
});

// The callee's generated paths type a declaration: a path or method it does not serve does not compile (checked by
// `pnpm typecheck`, which fails when an expected error goes away; never called).
export const undeclarable = () => [
  // @ts-expect-error: the rag service serves no such path
  siblingOperation({ service: 'rag', method: 'GET', path: '/v3/rag/nowhere', response: thing }),
  // @ts-expect-error: nor POST on a configuration
  siblingOperation({ service: 'rag', method: 'POST', path: '/v3/rag/{config_id}/', response: thing }),
  siblingOperation({
    service: 'rag',
    method: 'GET',
    path: '/v3/rag/{config_id}/',
    // @ts-expect-error: a configuration has no such field, so no answer is what this caller reads
    response: Joi.object<{ nope: string }>({ nope: Joi.string().required() }),
  }),
  // @ts-expect-error: nor is there a service of that name
  siblingOperation({ service: 'things', method: 'GET', path: '/v3/rag/{config_id}/', response: thing }),
];
