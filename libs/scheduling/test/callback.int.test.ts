import { createHmac } from 'node:crypto';

import { createOutboundClient } from '@platform/outbound';
import {
  attemptCallback,
  CALLBACK_DELAYS_MS,
  callbackMessageId,
  newCallbackSecret,
  signCallback,
} from '@platform/scheduling';
import { startLocalServer, type LocalServer } from '@platform/testing';

// Completion callbacks as a receiver sees them: the Standard Webhooks headers and signature, and which answers a
// delivery tries again. The receiver is a local server; the outbound guard allows only its port.

interface Seen {
  headers: Record<string, string | string[] | undefined>;
  body: string;
}
let seen: Seen[] = [];
let answer: { status: number; hang?: boolean } = { status: 204 };
let receiver: LocalServer;

beforeAll(async () => {
  receiver = await startLocalServer((req, res) => {
    seen.push({ headers: req.headers, body: req.body });
    if (answer.hang) return; // never answers
    res.writeHead(answer.status).end();
  });
});
afterAll(async () => {
  await receiver.close();
});
beforeEach(() => {
  seen = [];
  answer = { status: 204 };
});

const outbound = () => createOutboundClient({ allowHosts: `127.0.0.1:${receiver.port}` });
const execution = { id: '65f000000000000000000001', status: 'succeeded', response_output: 'done' };

test('signs exactly as the Standard Webhooks reference implementations (their published test vector)', () => {
  expect(
    signCallback(
      'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
      'msg_p5jXN8AQM9LWM0D4loKWxJek',
      1614265330,
      '{"test": 2432232314}',
    ),
  ).toBe('v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=');
});

test('a new secret is whsec_ and 32 random bytes in base64, different every time', () => {
  const a = newCallbackSecret();
  expect(a).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
  expect(Buffer.from(a.slice(6), 'base64')).toHaveLength(32);
  expect(newCallbackSecret()).not.toBe(a);
});

test('a delivery POSTs {type, data} with the id, the timestamp and a signature the receiver can check', async () => {
  const secret = newCallbackSecret();
  const now = new Date();
  const r = await attemptCallback(outbound(), { url: `${receiver.url}/hook`, secret }, execution.id, execution, now);
  expect(r).toEqual({ delivered: true, status: 204 });
  expect(seen).toHaveLength(1);
  const { headers, body } = seen[0]!;
  expect(JSON.parse(body)).toEqual({ type: 'execution.ended', data: execution });
  expect(headers['content-type']).toBe('application/json');
  expect(headers['webhook-id']).toBe(callbackMessageId(execution.id));
  expect(headers['webhook-timestamp']).toBe(String(Math.floor(now.getTime() / 1000)));
  // What a receiver computes from the raw bytes it got and its copy of the secret.
  const expected = createHmac('sha256', Buffer.from(secret.slice('whsec_'.length), 'base64'))
    .update(`${String(headers['webhook-id'])}.${String(headers['webhook-timestamp'])}.${body}`)
    .digest('base64');
  expect(headers['webhook-signature']).toBe(`v1,${expected}`);
});

test("5xx and 429 are tried again, other answers end the delivery; the id stays, the timestamp is the attempt's", async () => {
  const target = { url: `${receiver.url}/hook`, secret: newCallbackSecret() };
  const cases: [number, boolean][] = [
    [500, true],
    [503, true],
    [429, true],
    [400, false],
    [404, false],
    [301, false],
  ];
  for (const [status, retryable] of cases) {
    answer = { status };
    const r = await attemptCallback(outbound(), target, execution.id, execution, new Date());
    expect(r).toEqual({ delivered: false, retryable, status, error: `receiver answered ${status}` });
  }
  const later = new Date(Date.now() + 90_000);
  await attemptCallback(outbound(), target, execution.id, execution, later);
  expect(new Set(seen.map((s) => s.headers['webhook-id']))).toEqual(new Set([callbackMessageId(execution.id)]));
  expect(seen.at(-1)!.headers['webhook-timestamp']).toBe(String(Math.floor(later.getTime() / 1000)));
});

test('a receiver that does not answer in time is tried again; a refused address is not', async () => {
  answer = { status: 200, hang: true };
  const slow = await attemptCallback(
    outbound(),
    { url: `${receiver.url}/hook`, secret: newCallbackSecret() },
    execution.id,
    execution,
    new Date(),
    300,
  );
  expect(slow).toMatchObject({ delivered: false, retryable: true, status: null });
  const refused = await attemptCallback(
    createOutboundClient(), // the receiver's loopback address is not allowed
    { url: `${receiver.url}/hook`, secret: newCallbackSecret() },
    execution.id,
    execution,
    new Date(),
  );
  expect(refused).toMatchObject({ delivered: false, retryable: false, status: null });
  expect(seen).toHaveLength(1); // the refused one never connected
});

test('five attempts over about an hour', () => {
  const total = CALLBACK_DELAYS_MS.reduce((a, b) => a + b, 0);
  expect(CALLBACK_DELAYS_MS).toHaveLength(4);
  expect(total).toBeGreaterThanOrEqual(55 * 60_000);
  expect(total).toBeLessThanOrEqual(65 * 60_000);
});
