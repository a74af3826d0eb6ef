/** Secret examples: each provider format, tokens, JWTs, keys, connection strings; and look-alikes that are not secrets. */
import { ALNUM, chars, HEX, int, pick, times, vary, type Example, type Rand } from './eval-kit';

const b64url = (r: Rand, n: number) => chars(r, `${ALNUM}-_`, n);
const UPPER_NUM = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';

const SECRETS: [string, (r: Rand) => string][] = [
  ['aws_access_key_id', (r) => `AKIA${chars(r, UPPER_NUM, 16)}`],
  ['github_token', (r) => `${pick(r, ['ghp', 'gho', 'ghs'])}_${chars(r, ALNUM, 36)}`],
  ['gitlab_token', (r) => `glpat-${b64url(r, 20)}`],
  ['openai_api_key', (r) => `sk-${pick(r, ['proj-', ''])}${b64url(r, 40)}`],
  ['anthropic_api_key', (r) => `sk-ant-api03-${b64url(r, 40)}`],
  ['stripe_key', (r) => `${pick(r, ['sk', 'rk'])}_live_${chars(r, ALNUM, 24)}`],
  ['slack_token', (r) => `xoxb-${int(r, 1e10, 9e10)}-${chars(r, ALNUM, 24)}`],
  ['google_api_key', (r) => `AIza${b64url(r, 35)}`],
  ['jwt', (r) => `eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJ${b64url(r, 30)}.${b64url(r, 43)}`],
  [
    'private_key',
    (r) =>
      `-----BEGIN ${pick(r, ['RSA ', 'EC ', 'OPENSSH ', ''])}PRIVATE KEY-----\n${chars(r, ALNUM, 64)}\n-----END ${'PRIVATE KEY'}-----`,
  ],
  [
    'connection_string',
    (r) =>
      `${pick(r, ['postgres', 'mongodb', 'mysql', 'redis'])}://${pick(r, ['admin', 'app', 'svc'])}:${chars(r, ALNUM, 12)}@db${int(r, 1, 9)}.internal:5432/app`,
  ],
  ['npm_token', (r) => `npm_${chars(r, ALNUM, 36)}`],
  [
    'generic_secret',
    (r) => `${pick(r, ['api_key', 'client_secret', 'password', 'access_token'])}=${chars(r, ALNUM, 20)}`,
  ],
];

const CONTEXTS = [
  'Here is the config: {s}',
  'I pasted {s} into the env file by mistake.',
  'Use {s} when calling the API.',
  'export TOKEN="{s}"',
  'The logs show {s} in the header.',
];

const LOOKALIKES: [string, (r: Rand) => string][] = [
  ['git_sha', (r) => `Revert commit ${chars(r, HEX, 40)} from the branch.`],
  [
    'uuid',
    (r) =>
      `Request id ${chars(r, HEX, 8)}-${chars(r, HEX, 4)}-4${chars(r, HEX, 3)}-a${chars(r, HEX, 3)}-${chars(r, HEX, 12)} failed.`,
  ],
  [
    'placeholder',
    (r) =>
      `Set ${pick(r, ['api_key', 'password', 'token'])}=${pick(r, ['YOUR_API_KEY', '<redacted>', 'changeme', '********'])} in the file.`,
  ],
  ['sklearn', () => 'We use sk-learn and scikit-learn for the model.'],
  [
    'local_url',
    (r) =>
      `Connect to ${pick(r, ['mongodb', 'postgres', 'redis'])}://localhost:${int(r, 1000, 9999)}/app without a password.`,
  ],
  ['public_key', () => 'The -----BEGIN PUBLIC KEY----- block goes in the README.'],
  [
    'prose',
    (r) =>
      pick(r, [
        'The password policy requires twelve characters.',
        'Rotate your API keys every ninety days.',
        'Our token bucket allows ten requests per second.',
        'Never share a secret in a chat.',
      ]),
  ],
  ['base64_image', (r) => `The icon is data:image/png;base64,${chars(r, ALNUM, 30)} in the page.`],
];

/** 13 formats × 10 positives and 8 look-alike families × 13 negatives = 234 examples. */
export function secretExamples(r: Rand): Example[] {
  const positives = SECRETS.flatMap(([id, make]) =>
    times(10, () => ({
      text: vary(r, pick(r, CONTEXTS).replace('{s}', make(r))),
      label: true,
      source: `synthetic:secrets:${id}`,
    })),
  );
  const negatives = LOOKALIKES.flatMap(([id, make]) =>
    times(13, () => ({ text: vary(r, make(r)), label: false, source: `synthetic:secrets:negative:${id}` })),
  );
  return [...positives, ...negatives];
}
