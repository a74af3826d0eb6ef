import { generateSecretKey, verificationSecrets } from '../src/webhooks/webhook.secrets';
import { SECRET } from './helpers';

describe('generateSecretKey', () => {
  it('is whsec_ + base64 of 32 random bytes, different every time', () => {
    const keys = new Set(Array.from({ length: 50 }, generateSecretKey));
    expect(keys.size).toBe(50);
    for (const k of keys) {
      expect(k).toMatch(SECRET);
      expect(Buffer.from(k.slice('whsec_'.length), 'base64')).toHaveLength(32);
    }
  });
});

describe('verificationSecrets', () => {
  const now = new Date('2030-01-01T00:00:00.000Z');
  const at = (deltaMs: number) => new Date(now.getTime() + deltaMs);

  it('is the current secret alone when there is no previous one', () => {
    expect(
      verificationSecrets({ secret_key: 'new', previous_secret_key: null, previous_secret_expires_at: null }, now),
    ).toEqual(['new']);
  });

  it('adds the previous secret until its expiry, excluding the expiry instant', () => {
    const w = { secret_key: 'new', previous_secret_key: 'old', previous_secret_expires_at: at(1000) };
    expect(verificationSecrets(w, now)).toEqual(['new', 'old']);
    expect(verificationSecrets(w, at(999))).toEqual(['new', 'old']);
    expect(verificationSecrets(w, at(1000))).toEqual(['new']);
    expect(verificationSecrets(w, at(5000))).toEqual(['new']);
  });

  it('a grace of 0 (expiry = now) leaves only the current secret', () => {
    expect(
      verificationSecrets({ secret_key: 'new', previous_secret_key: 'old', previous_secret_expires_at: now }, now),
    ).toEqual(['new']);
  });

  it('ignores a previous secret without an expiry, and never lists a secret twice', () => {
    expect(
      verificationSecrets({ secret_key: 'new', previous_secret_key: 'old', previous_secret_expires_at: null }, now),
    ).toEqual(['new']);
    expect(
      verificationSecrets({ secret_key: 'same', previous_secret_key: 'same', previous_secret_expires_at: at(1) }, now),
    ).toEqual(['same']);
  });
});
