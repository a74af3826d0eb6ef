import createClient from 'openapi-fetch';

import { createOutboundClient } from '@platform/outbound';
import { startLocalServer, type LocalServer } from '@platform/testing';

import { outboundFetch, OutboundFetchRequest } from '../src';

let server: LocalServer;
let answer: { status: number; type?: string; body: string } = { status: 200, body: '{}' };
beforeAll(async () => {
  server = await startLocalServer((_req, res) => {
    res.statusCode = answer.status;
    if (answer.type) res.setHeader('content-type', answer.type);
    res.end(answer.status === 204 ? undefined : answer.body);
  });
});
afterAll(() => server.close());

interface Paths {
  '/things/{id}': {
    post: {
      parameters: { path: { id: string } };
      requestBody: { content: { 'application/json': { name: string } } };
      responses: {
        200: { content: { 'application/json': { id: string; name: string } } };
        404: { content: { 'application/json': { detail: string } } };
      };
    };
  };
  '/forms': {
    post: {
      requestBody: { content: { 'multipart/form-data': FormData } };
      responses: { 204: { content?: never } };
    };
  };
}

const client = () => {
  const outbound = createOutboundClient({ allowHosts: new URL(server.url).host, maxRedirects: 0 });
  return createClient<Paths>({
    baseUrl: server.url,
    fetch: outboundFetch(outbound) as (input: Request) => Promise<Response>,
    Request: OutboundFetchRequest as unknown as typeof Request,
  });
};

test('a JSON call goes out with its method, path, headers and body, and its JSON answer is the data', async () => {
  answer = { status: 200, type: 'application/json', body: '{"id":"7","name":"seven"}' };
  const c = client();
  c.use({
    onRequest: ({ request }) => {
      request.headers.set('x-request-id', 'req-1');
      return request;
    },
  });
  const { data, response } = await c.POST('/things/{id}', { params: { path: { id: '7' } }, body: { name: 'seven' } });
  expect(data).toEqual({ id: '7', name: 'seven' });
  expect([response.status, response.ok, response.headers.get('Content-Type')]).toEqual([200, true, 'application/json']);
  const sent = server.requests.at(-1)!;
  expect([sent.method, sent.url, sent.headers['x-request-id'], sent.headers['content-type']]).toEqual([
    'POST',
    '/things/7',
    'req-1',
    'application/json',
  ]);
  expect(sent.json).toEqual({ name: 'seven' });
  // What openapi-fetch does not read is still there, from a real Response.
  expect(Buffer.from(await response.arrayBuffer()).toString()).toBe('{"id":"7","name":"seven"}');
});

test('an error answer is the error, as JSON when it is JSON and as text when not', async () => {
  answer = { status: 404, type: 'application/json', body: '{"detail":"Thing not found"}' };
  const json = await client().POST('/things/{id}', { params: { path: { id: '8' } }, body: { name: 'x' } });
  expect([json.response.status, json.response.ok, json.error]).toEqual([404, false, { detail: 'Thing not found' }]);
  answer = { status: 502, type: 'text/plain', body: 'bad gateway' };
  const text = await client().POST('/things/{id}', { params: { path: { id: '8' } }, body: { name: 'x' } });
  expect([text.response.status, text.error]).toEqual([502, 'bad gateway']);
});

test('a form goes out as multipart with its boundary; a 204 has no data', async () => {
  answer = { status: 204, body: '' };
  const form = new FormData();
  form.set('field', 'value');
  const { data, response } = await client().POST('/forms', { body: form, bodySerializer: (b) => b });
  expect([response.status, data]).toEqual([204, undefined]);
  const sent = server.requests.at(-1)!;
  expect(sent.headers['content-type']).toMatch(/^multipart\/form-data; boundary=/);
  expect(sent.body).toContain('name="field"');
  expect(sent.body).toContain('value');
});
