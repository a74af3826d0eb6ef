/** Sibling operations: declared once, kept for the document check, and turned into the call's method, path and schema. */
import Joi from 'joi';

import { operationCall, siblingOperation, siblingOperations } from '@platform/service-client';

const thing = Joi.object<{ id: string }>({ id: Joi.string().required() });
const READ = siblingOperation({ service: 'things', method: 'GET', path: '/v1/things/{thing_id}/', response: thing });

test('a declared operation is kept for the check against the callee document', () => {
  expect(siblingOperations()).toContain(READ);
});

test("a call fills the path template, each value encoded, and carries the operation's method and schema", () => {
  expect(operationCall(READ, { thing_id: 'a b/c' })).toEqual({
    method: 'GET',
    path: '/v1/things/a%20b%2Fc/',
    response: thing,
  });
});

test('a template value left out is a programming error, never a request to a wrong path', () => {
  expect(() => operationCall(READ)).toThrow('/v1/things/{thing_id}/: no value for {thing_id}');
});
