import { randomBytes } from 'node:crypto';

import { signSha256, signStandard, verifySignature } from '../src/webhooks/signature';

const secret = `whsec_${randomBytes(32).toString('base64')}`;
const other = `whsec_${randomBytes(32).toString('base64')}`;
const body = Buffer.from('{"event":"order.created","id":42}');
const now = new Date('2026-06-01T12:00:00Z');
const nowS = Math.floor(now.getTime() / 1000);
const verify = (h: Record<string, string>, b = body, secrets = [secret]) => verifySignature(h, b, secrets, now);

describe('sha256= scheme', () => {
  const valid = signSha256(secret, body);
  it.each([
    ['no header', {}],
    ['empty', { 'x-webhook-signature': '' }],
    ['sha256= without hex', { 'x-webhook-signature': 'sha256=' }],
    ['wrong prefix', { 'x-webhook-signature': valid.replace('sha256=', 'sha1=') }],
    ['odd length', { 'x-webhook-signature': valid.slice(0, -1) }],
    ['non-hex', { 'x-webhook-signature': `sha256=${'z'.repeat(64)}` }],
    ['too long', { 'x-webhook-signature': `${valid}00` }],
    ['huge', { 'x-webhook-signature': `sha256=${'a'.repeat(100_000)}` }],
    ['another secret', { 'x-webhook-signature': signSha256(other, body) }],
  ])('%s → refused without throwing', (_n, h) => {
    expect(verify(h as Record<string, string>)).toBe(false);
  });
  it('valid, in upper-case hex too', () => {
    expect(verify({ 'x-webhook-signature': valid })).toBe(true);
    expect(verify({ 'x-webhook-signature': `sha256=${valid.slice(7).toUpperCase()}` })).toBe(true);
  });
  it('one flipped body byte, or re-serialized JSON, is refused', () => {
    const flipped = Buffer.from(body);
    flipped[5] = (flipped[5] ?? 0) ^ 1;
    expect(verify({ 'x-webhook-signature': valid }, flipped)).toBe(false);
    const reserialized = Buffer.from(JSON.stringify(JSON.parse(body.toString()), null, 1));
    expect(verify({ 'x-webhook-signature': valid }, reserialized)).toBe(false);
  });
  it('the previous secret verifies while it is among the valid secrets', () => {
    expect(verify({ 'x-webhook-signature': signSha256(other, body) }, body, [secret, other])).toBe(true);
  });
  it('no valid secret at all refuses everything', () => {
    expect(verify({ 'x-webhook-signature': valid }, body, [])).toBe(false);
  });
});

describe('Standard Webhooks scheme', () => {
  it('valid', () => {
    expect(verify(signStandard(secret, 'msg_1', nowS, body))).toBe(true);
  });
  it('accepts any matching entry of a space-separated list', () => {
    const h = signStandard(secret, 'msg_1', nowS, body);
    expect(
      verify({ ...h, 'webhook-signature': `v1,${Buffer.alloc(32).toString('base64')} ${h['webhook-signature']}` }),
    ).toBe(true);
  });
  it.each([
    ['stale timestamp', signStandard(secret, 'msg_1', nowS - 301, body)],
    ['future timestamp', signStandard(secret, 'msg_1', nowS + 301, body)],
    ['another secret', signStandard(other, 'msg_1', nowS, body)],
    ['tampered id', { ...signStandard(secret, 'msg_1', nowS, body), 'webhook-id': 'msg_2' }],
    ['non-numeric timestamp', { ...signStandard(secret, 'msg_1', nowS, body), 'webhook-timestamp': 'soon' }],
    ['no v1 entry', { ...signStandard(secret, 'msg_1', nowS, body), 'webhook-signature': 'v2,abc' }],
    ['missing id', { 'webhook-timestamp': String(nowS), 'webhook-signature': 'v1,abc' }],
  ])('%s → refused', (_n, h) => {
    expect(verify(h as Record<string, string>)).toBe(false);
  });
  it('the boundary of the tolerance is inside', () => {
    expect(verify(signStandard(secret, 'msg_1', nowS - 300, body))).toBe(true);
  });
});
