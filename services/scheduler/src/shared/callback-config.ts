import { ConflictError } from '@platform/errors';
import type { AllowEntry } from '@platform/outbound';
import { newCallbackSecret, type CallbackConfig } from '@platform/scheduling';
import type { SecretBox } from '@platform/secrets';

import { assertCallableTarget } from './target-url';

/**
 * The completion callback of a webhook or schedule (contract §8), the same rules for all three kinds: its
 * `callback_url`, and its signing secret (`whsec_...`) stored sealed with the schedule secret box (the worker holds
 * that key and opens it to sign). The secret is generated when a URL is first set, shown in the answer of that
 * request only, kept when the URL changes, removed with the URL (null), and replaced by a rotation.
 */
export interface CallbackSecrets {
  /** The schedule secret box (SCHEDULE_SECRET_ENCRYPTION_KEY). */
  box: SecretBox;
  newSecret?: () => string;
  /** Hosts a callback may name although loopback or private (OUTBOUND_ALLOW_HOSTS, as the worker's). */
  allow?: AllowEntry[];
}

/** A change to store: `$set` these fields when the stored record still matches `expect` (compare-and-set). */
export interface CallbackChange {
  set: Partial<CallbackConfig>;
  expect: Partial<CallbackConfig>;
  /** The new secret in plaintext, for this answer only. */
  shown?: string;
}

/** Attempts of a compare-and-set change before the request gives up with 409 (another request kept changing it). */
export const CALLBACK_CHANGE_ATTEMPTS = 5;

export function createCallbackSecrets({ box, newSecret = newCallbackSecret, allow = [] }: CallbackSecrets) {
  const fresh = () => {
    const plain = newSecret();
    return { plain, sealed: box.encrypt(plain) };
  };

  return {
    /** The fields a new resource stores (a secret when it names a URL), and the secret to show. */
    onCreate(url: string | null | undefined): { fields: CallbackConfig; shown?: string } {
      if (!url) return { fields: { callback_url: null, callback_secret_sealed: null } };
      assertCallableTarget(url, allow, 'callback_url');
      const { plain, sealed } = fresh();
      return { fields: { callback_url: url, callback_secret_sealed: sealed }, shown: plain };
    },

    /**
     * What a PATCH's `callback_url` changes over `current`: nothing (not sent), removal (null: the URL and its
     * secret), or a URL (the stored secret kept; one generated and shown when none is stored).
     */
    onPatch(current: CallbackConfig, url: string | null | undefined): CallbackChange | null {
      if (url === undefined) return null;
      if (url === null) return { set: { callback_url: null, callback_secret_sealed: null }, expect: {} };
      assertCallableTarget(url, allow, 'callback_url');
      const expect = { callback_secret_sealed: current.callback_secret_sealed };
      if (current.callback_secret_sealed) return { set: { callback_url: url }, expect };
      const { plain, sealed } = fresh();
      return { set: { callback_url: url, callback_secret_sealed: sealed }, expect, shown: plain };
    },

    /** A new secret for `current`'s URL; 409 when it has none. */
    rotate(current: CallbackConfig, noun: string): CallbackChange {
      if (!current.callback_url)
        throw new ConflictError(`${noun} has no callback_url; set one (PATCH) before regenerating its callback secret`);
      const { plain, sealed } = fresh();
      return {
        set: { callback_secret_sealed: sealed },
        expect: { callback_url: current.callback_url, callback_secret_sealed: current.callback_secret_sealed },
        shown: plain,
      };
    },
  };
}

export type CallbackSecretsService = ReturnType<typeof createCallbackSecrets>;

/** The public object with the secret a request generated, when it did. */
export const withShownSecret = <T extends object>(
  view: T,
  shown: string | undefined,
): T & { callback_secret?: string } => (shown === undefined ? view : { ...view, callback_secret: shown });
