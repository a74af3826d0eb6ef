/**
 * The secrets suite catches a broken promise: with the secret box sealing nothing (its encryption replaced by a
 * pass-through for this file only), the same dump check finds the provider key and the tool header value in plaintext.
 */
import type * as SecretsLib from '@platform/secrets';

import { plaintextInDump } from './dump';
import { startAgentWorld, type SecurityWorld } from './worlds';

jest.mock('@platform/secrets', () => {
  const actual = jest.requireActual<typeof SecretsLib>('@platform/secrets');
  return {
    ...actual,
    createSecretBox: () => ({
      encrypt: (plain: string) => `plain:${plain}`,
      decrypt: (sealed: string) => sealed.replace(/^plain:/, ''),
    }),
  };
});

let world: SecurityWorld;
beforeAll(async () => {
  world = await startAgentWorld();
});
afterAll(async () => {
  await world?.close();
});

it('reports the secrets stored in plaintext', async () => {
  const found = await plaintextInDump(world);
  expect(found).toEqual(
    expect.arrayContaining([
      expect.stringContaining(world.secrets[0]!.slice(0, 12)),
      expect.stringContaining(world.secrets[1]!.slice(0, 12)),
    ]),
  );
});
