import { withLogContext } from '@platform/logger';

import { INTERNAL_HEADERS, internalCallHeaders } from '../src';

const owner = { user_id: 'alice', org_id: 'acme' };

it('names the secret and the owner, and carries the current request id into the called service', () => {
  const inside = withLogContext({ requestId: 'req-42' }, () => internalCallHeaders('s3cret', owner));
  expect(inside).toEqual({
    [INTERNAL_HEADERS.secret]: 's3cret',
    [INTERNAL_HEADERS.user]: 'alice',
    [INTERNAL_HEADERS.org]: 'acme',
    'x-request-id': 'req-42',
  });
});

it('sends no request id outside a request (a timer, a start-up task)', () => {
  expect(internalCallHeaders('s3cret', owner)).toEqual({
    [INTERNAL_HEADERS.secret]: 's3cret',
    [INTERNAL_HEADERS.user]: 'alice',
    [INTERNAL_HEADERS.org]: 'acme',
  });
});
