import { hardCodedPassword, strongPassword } from '../src/checks/secret-rules';
import { secretFindings } from '../src/checks/secrets.check';

/** A deterministic random-looking string over `alphabet` (no real credential). */
function randomish(n: number, alphabet: string, seed = 11): string {
  let x = seed;
  let out = '';
  for (let i = 0; i < n; i++) {
    x = (Math.imul(x, 1103515245) + 12345) >>> 0;
    out += alphabet[(x >>> 16) % alphabet.length];
  }
  return out;
}
const ALNUM = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
const B64 = `${ALNUM}+/`;
const found = (text: string) => secretFindings(text, 'mask').map((f) => f.detail);

describe('key, token, secret and password assignments in many notations', () => {
  const value = randomish(24, ALNUM);
  it.each([
    [`my_secret = "${value}"`],
    [`const apiKey = "${value}";`],
    [`encryption_key: ${value}`],
    [`$token = '${value}';`],
    [`'auth_token' => '${value}',`],
    [`:secret => "${value}"`],
    [`"refreshToken": "${value}",`],
    [`export SERVICE_TOKEN=${value}`],
    [`#define API_TOKEN "${value}"`],
    [`val token: String = "${value}"`],
    [`String secret = new String("${value}");`],
    [`token <- "${value}"`],
    [`<add key="ApiKey" value="${value}" />`],
    [`<entry name="clientSecret">${value}</entry>`],
    [`{"name": "api_token", "value": "${value}"}`],
    [`Authorization: Token ${value}`],
    [`X-API-Key: ${value}`],
    [`https://api.example.org/v1/items?api_key=${value}&page=2`],
    [`mytool --api-token ${value} --verbose`],
    [`curl -u admin:${value} https://ci.example.org/api`],
    [`Server=db;Database=app;User Id=sa;Password=Tq7mZ2p!x9;`],
    [`machine api.example.org login deploy password hunter22x`],
    [`DJANGO_SECRET_KEY = "${randomish(20, ALNUM)}(&*^%${randomish(20, ALNUM, 3)}"`],
  ])('%s', (text) => {
    expect(found(text).length).toBeGreaterThan(0);
  });

  it.each([
    ['cache_key = "user:12345:profile"'],
    ['const tokenKey = "auth_token_v2_storage_key";'],
    ['secret_name = "prod-db-credentials-2023"'],
    ['token = request.headers.get("Authorization")'],
    ['password = "Password:"'],
    ['"author": "sinclairzx81",'],
    ['"pass_mask64": "0x81103c1452dd61cd",'],
    ['bypass = "cackle!"'],
    ['passed = "fine42!"'],
    ['password_field = "passwd"'],
    ['https://user:password123@proxy.example.com:8000'],
    ['sha256 = "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08"'],
  ])('not %s', (text) => {
    expect(found(text)).toEqual([]);
  });

  it('takes a quoted literal after a password keyword as a hard-coded password, a bare value only when strong', () => {
    expect(found('password = "hunter22"')).toEqual(['password found']);
    expect(found('password: hunter22')).toEqual([]);
    expect(hardCodedPassword('cackle!')).toBe(true);
    expect(hardCodedPassword('passwd')).toBe(false);
    expect(hardCodedPassword('changeme1')).toBe(false);
    expect(strongPassword(randomish(20, 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz'))).toBe(true);
    expect(strongPassword('PasswordField')).toBe(false);
  });
});

describe('private keys in any form and fixed-format provider keys', () => {
  it('finds PuTTY, SSH2, truncated and base64-wrapped key blocks, not elided ones', () => {
    const putty = `PuTTY-User-Key-File-2: ssh-rsa\nEncryption: none\nComment: k\nPublic-Lines: 1\n${randomish(60, B64)}\nPrivate-Lines: 1\n${randomish(60, B64, 5)}\nPrivate-MAC: ${randomish(40, 'abcdef0123456789')}`;
    expect(found(putty)).toEqual(['private_key found']);
    const ssh2 = `---- BEGIN SSH2 ENCRYPTED PRIVATE KEY ----\nComment: "k"\n${randomish(64, B64)}\n---- END SSH2 ENCRYPTED PRIVATE KEY ----`;
    expect(found(ssh2)).toEqual(['private_key found']);
    expect(found(`-----BEGIN RSA PRIVATE KEY-----\n${randomish(64, B64)}`)).toEqual(['private_key found']);
    const file = `apiVersion: v1\nkind: Config\nkey: |\n  -----BEGIN EC PRIVATE KEY-----\n  ${randomish(64, B64)}\n  -----END EC PRIVATE KEY-----\n`;
    expect(found(Buffer.from(file.repeat(2)).toString('base64'))).toEqual(['private_key found']);
    expect(found('-----BEGIN RSA PRIVATE KEY-----\nMIIEow...\n-----END RSA PRIVATE KEY-----')).toEqual([]);
  });

  it('knows further provider formats and rejects their documentation look-alikes', () => {
    expect(found(`key LTAI${randomish(16, ALNUM)}`)).toContain('alibaba_access_key_id found');
    expect(found(`AKID${randomish(32, ALNUM)}`)).toEqual(['tencent_secret_id found']);
    expect(
      found(
        `docker swarm join --token SWMTKN-1-${randomish(50, 'abcdefghijklmnopqrstuvwxyz0123456789')}-${randomish(25, 'abcdefghijklmnopqrstuvwxyz0123456789')} 10.0.0.1:2377`,
      ),
    ).toEqual(['docker_swarm_token found']);
    expect(found(`mailchimp ${randomish(32, ALNUM)}-us6`).length).toBe(1);
    expect(found(`${randomish(52, ALNUM)}JQQJ99ALACAAAAAAAAAAAAASAZDO${randomish(4, ALNUM)}`)).toEqual([
      'azure_identifiable_key found',
    ]);
    expect(found(`${'o'.repeat(52)}JQQJ99AEAAAAAAAAAAAAAAAAAZFURg67`)).toEqual([]);
  });

  // Adversarial 2 KB junk finds nothing and ends at once: a pattern that backtracked without bound would hit the
  // test's time limit (the latency itself is measured by `pnpm bench:rai`, not asserted here).
  it('finds nothing in adversarial junk, and ends on it', () => {
    const junk = [
      'password = password = password = '.repeat(60),
      randomish(2048, B64),
      'token '.repeat(340),
      `<add key="secret" value="${'a'.repeat(2000)}`,
    ].map((t) => t.slice(0, 2048));
    expect(junk.map(found)).toEqual([[], [], [], []]);
  });
});
