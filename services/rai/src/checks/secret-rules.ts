/**
 * Our own secret patterns, run before gitleaks' generated table (secrets/gitleaks.ts): provider key formats with fixed
 * prefixes, tokens, JWTs, private key blocks, connection strings with a password, bearer tokens and generic
 * `api_key = …` assignments. Each pattern is anchored on its prefix or its keyword, so a scan is linear. Every match
 * goes through the look-alike suppression (placeholders, documentation keys) before it counts.
 */
import { isIdentifierOrHash, isPlaceholder, shannonEntropy, wordsIdentifier } from './secrets/lookalike';

export interface SecretRule {
  id: string;
  pattern: RegExp;
  /** A further test of the secret (e.g. placeholders such as YOUR_API_KEY are not secrets). */
  accept?: (secret: string, group: number) => boolean;
  /** The capture group holding the secret, or groups of which the first that matched (the pattern then needs the `d`
   * flag); else the whole match. */
  group?: number | number[];
  /** Lower-case substrings one of which the text must hold before the pattern is tried (as gitleaks' keywords). */
  keywords?: string[];
  /** A test of the whole match and the (up to 8) characters before it (the keyword is not inside another word). */
  context?: (match: string, before: string) => boolean;
  /** `accept` looks for placeholders itself, in the part that matters (a URL's password, not its host). */
  ownPlaceholderTest?: boolean;
}

/** A value that mixes letters and digits, as generated secrets do and placeholders (`YOUR_API_KEY`, `changeme`) do not. */
const mixed = (v: string) => /\d/.test(v) && /[A-Za-z]/.test(v);

const CODE_LIKE = [
  /^[A-Za-z_$][A-Za-z_$]*\d*(?:\.[A-Za-z_$][A-Za-z_$]*\d*)+$/, // a dotted path: config.db.password
  /^[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+$/, // an upper-case constant: DB_PASSWORD_2
  /^[a-z]+(?:[A-Z][a-z]+)+\d{0,2}$/, // camelCase words: getPassword
  /^(?:[A-Z][a-z]{2,}){2,}\d{0,2}$/, // PascalCase words: PasswordField
  /^(?:[A-Z][a-z]+)+-(?:[A-Z][a-z]+)+$/, // PowerShell cmdlets: ConvertTo-SecureString
  /^(?:[a-z]+_)+[a-z]+\d{0,2}$/, // snake_case words
  /^[a-z]+:\/\//i, // a URL (connection strings have their own rule)
  /^[A-Za-z]+:$/, // a label: `Password:`
  /^0x[0-9a-f]+$/i, // a number in hex: 0x81103c1452dd61cd
  /&\w+=/, // the rest of a query string: NONE&LIBRARY=%2F…
];

/**
 * A user-chosen password after a password keyword: at least three of lower case, upper case, digits and symbols
 * (`nCzx8A8#!`), or letters and digits over 10+ characters with some entropy, and not code (`process.env.DB_PASS`,
 * `DB_PASSWORD`, `getPassword2`) nor a placeholder.
 */
export function strongPassword(v: string): boolean {
  if (v.length < 6 || isPlaceholder(v) || CODE_LIKE.some((re) => re.test(v))) return false;
  const classes = [/[a-z]/, /[A-Z]/, /\d/, /[^A-Za-z0-9]/].filter((re) => re.test(v)).length;
  // Three kinds of characters, or two over 10+ characters (letters and digits), or a long random run of letters.
  const strong =
    classes >= 3 ||
    (classes === 2 && mixed(v) && v.length >= 10) ||
    (classes === 2 && v.length >= 16 && shannonEntropy(v) >= 3.5);
  return strong && shannonEntropy(v) >= 2.5 && !isIdentifierOrHash(v, '') && !wordsIdentifier(v);
}

/**
 * A quoted literal after a password keyword (`password = "hunter22"`): a hard-coded password even when weak, unless it
 * is a single word without digits or symbols (`"passwd"`, a field name), code, a placeholder or a default.
 */
export function hardCodedPassword(v: string): boolean {
  if (strongPassword(v)) return true;
  return (
    v.length >= 6 &&
    /[A-Za-z]/.test(v) &&
    /[^A-Za-z]/.test(v) &&
    !isPlaceholder(v) &&
    !DOC_PASSWORDS.has(v.toLowerCase().replace(/[\d!]{1,4}$/, '')) &&
    !CODE_LIKE.some((re) => re.test(v)) &&
    !wordsIdentifier(v) &&
    !/^[\w.-]+\.[a-z]{2,4}$/i.test(v) &&
    shannonEntropy(v) >= 2.3
  );
}

/**
 * A generic assignment's value must look generated: letters and digits mixed, 8+ characters (12+ unless both cases
 * occur), high entropy for its length (a 12-character random value has ≈ 3.3 bits per character, an English word
 * far less), and not code, an identifier or a hash.
 */
export const GENERIC_MIN_ENTROPY = 3;
export const generatedValue = (v: string): boolean =>
  v.length >= 8 &&
  mixed(v) &&
  (v.length >= 12 || (/[A-Z]/.test(v) && /[a-z]/.test(v))) &&
  shannonEntropy(v) >= GENERIC_MIN_ENTROPY &&
  !CODE_LIKE.some((re) => re.test(v)) &&
  !wordsIdentifier(v) &&
  !isIdentifierOrHash(v, '');

/** Password keywords and their common abbreviations and misspellings: pwd, pw, pswd, passwd, passphrase, … */
const PASSWORD_KEY =
  '(?:p(?:as{1,2}(?:w(?:o?r)?d|phrase)?|s{1,2}w(?:o?r)?d|wd?|/w)s?|identified\\s+by|비밀번호|비번|패스워드|암호)';
/** Names of keys, tokens and secrets in assignments. */
const SECRET_KEY =
  '(?:api[_-]?key|apikey|api[_-]?secret|secret(?:[_-]?key)?|client[_-]?secret|access[_-]?(?:key|token)|auth(?!or|ority|ent|ori[sz])(?:[_-]?(?:token|key))?|(?:bearer[_-]?|refresh[_-]?|session[_-]?|id[_-]?)?token|private[_-]?key|credentials?|(?:encryption|signing|master|app|consumer|license|shared|hmac|crypt|enc|sign|storage|subscription|account|service|secure|webhook)[_-]?key|key)';
/**
 * Between a key and its value: `=`, `:`, `:=`, `=>`, `==`, a type annotation, ` is `, a quote after a space, a comma
 * or an opening parenthesis (`PASSWORD('…')`), a CLI flag's space, the end of an XML tag.
 */
const separator = (key: string) =>
  String.raw`(?:["'\\]{0,2}\s{0,3}(?::\s{0,3}[A-Za-z][\w<>[\]]{0,20}\s{0,3})?(?::=|==|!=|=>|=|:|<-|\s+is\s+)\s{0,3}(?:new\s+String\(\s{0,3})?|(?:\s[^<>\n]{0,60})?>|(?<=-${key})\s+|\s+\\?(?=["'])|[,(]\s{0,3}(?=["']))`;
/**
 * The value: 6–256 characters, either quoted (anything but quotes and spaces) or bare (up to a delimiter, and not a
 * function being called: `tokenizer = AutoTokenizer.from_pretrained(…)`).
 */
const VALUE = String.raw`(?:(["'${'`'}])([^\s"'${'`'}\\]{6,256})\1|["'${'`'}]?([^\s"'${'`'}<>;,(){}[\]]{6,256})(?![^\s"'${'`'}<>;,(){}[\]]|\())`;
/** The groups of VALUE that hold the value: the quoted form (any characters but quotes), else the bare form. */
const VALUE_GROUPS = [2, 3];

/** Passwords of a connection string that are placeholders or defaults in documentation. */
const DOC_PASSWORDS = new Set([
  'password',
  'pass',
  'passwd',
  'pwd',
  'secret',
  'test',
  'changeme',
  'user',
  'username',
  'root',
  'admin',
]);
const decodeURIComponentSafe = (v: string) => {
  try {
    return decodeURIComponent(v);
  } catch {
    return v;
  }
};

const connectionPassword = (m: string) => {
  const pw = m.replace(/^[^:]+:\/\/[^:]*:/, '').replace(/@[^@]*$/, '');
  return (
    !DOC_PASSWORDS.has(pw.toLowerCase().replace(/\d{1,4}$/, '')) && !isPlaceholder(pw) && !/^[$%{[<(]|[[\\]/.test(pw)
  );
};

export const SECRET_RULES: SecretRule[] = [
  {
    id: 'private_key',
    pattern:
      /-{4,5} ?BEGIN[ A-Z0-9]{0,40}PRIVATE KEY(?: BLOCK)? ?-{4,5}[\s\S]{16,10000}?-{4,5} ?END[ A-Z0-9]{0,40}PRIVATE KEY(?: BLOCK)? ?-{4,5}/g,
    // A block is unmistakable; only an elided or templated body (`...`, `<your key>`, `xxxxx`) is a placeholder.
    accept: (block) =>
      !/\.\.\.|…|<[^>\n]*>|\byour\b|example|redacted|x{5,}/i.test(block.replace(/-----[A-Z ]+-----/g, '')),
    ownPlaceholderTest: true,
  },
  {
    // A key block cut off before its END line (a pasted fragment, a log line): the header and 40+ characters of body.
    id: 'private_key',
    pattern:
      /-{4,5} ?BEGIN[ A-Z0-9]{0,40}PRIVATE KEY(?: BLOCK)? ?-{4,5}(?![\s\S]{0,10000}?-{4,5} ?END)(?:\s|\\[nr])*((?:[A-Za-z0-9+/=]|\r?\n|\\n){40,})/dg,
    group: 1,
    accept: (body) => !/\.\.\.|x{5,}/i.test(body) && shannonEntropy(body.replace(/\\n|\s/g, '')) >= 4,
  },
  {
    // PuTTY's key files: the private part follows `Private-Lines: n`.
    id: 'private_key',
    pattern: /PuTTY-User-Key-File-\d+:[\s\S]{0,3000}?Private-Lines:\s*\d+\s+([A-Za-z0-9+/=\s]{20,})/dg,
    group: 1,
    keywords: ['putty-user-key-file'],
  },
  { id: 'aws_access_key_id', pattern: /\b(?:AKIA|ASIA|ABIA|ACCA|A3T[A-Z0-9])[A-Z0-9]{16}\b/g },
  {
    id: 'aws_secret_access_key',
    pattern: /(?<=aws.{0,20}?(?:secret|key).{0,20}?[=:]\s{0,5}["']?)[A-Za-z0-9/+=]{40}\b/gi,
  },
  { id: 'github_token', pattern: /\b(?:ghp|gho|ghu|ghs|ghr)_[A-Za-z0-9]{36,255}\b/g },
  { id: 'github_fine_grained_pat', pattern: /\bgithub_pat_[A-Za-z0-9_]{82}\b/g },
  { id: 'gitlab_token', pattern: /\bglpat-[A-Za-z0-9_-]{20,}\b/g },
  { id: 'anthropic_api_key', pattern: /\bsk-ant-(?:api|admin)\d{2}-[A-Za-z0-9_-]{20,}/g },
  { id: 'openai_api_key', pattern: /\bsk-(?!ant-)(?:proj-|svcacct-|admin-)?[A-Za-z0-9_-]{20,}/g },
  { id: 'stripe_key', pattern: /\b(?:sk|rk|pk)_(?:live|test)_[A-Za-z0-9]{16,}\b/g },
  { id: 'slack_token', pattern: /\bxox[abposr]-[A-Za-z0-9-]{10,}\b/g },
  { id: 'slack_webhook', pattern: /https:\/\/hooks\.slack\.com\/(?:services|workflows)\/[A-Za-z0-9+/]{20,}/g },
  { id: 'google_api_key', pattern: /\bAIza[0-9A-Za-z_-]{35}\b/g },
  { id: 'sendgrid_api_key', pattern: /\bSG\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{43}\b/g },
  { id: 'twilio_api_key', pattern: /\bSK[0-9a-f]{32}\b/g },
  { id: 'npm_token', pattern: /\bnpm_[A-Za-z0-9]{36}\b/g },
  { id: 'huggingface_token', pattern: /\bhf_[A-Za-z]{34}\b/g },
  { id: 'groq_api_key', pattern: /\bgsk_[A-Za-z0-9]{48,}\b/g },
  { id: 'stripe_webhook_secret', pattern: /\bwhsec_[A-Za-z0-9]{32,}\b/g },
  { id: 'posthog_key', pattern: /\bph[acrsx]_[A-Za-z0-9]{39,64}\b/g },
  { id: 'cloudflare_token', pattern: /\bcf(?:at|ut|k)_[A-Za-z0-9]{40,}\b/g },
  { id: 'netlify_token', pattern: /\bnfp_[A-Za-z0-9]{36,}\b/g },
  { id: 'heroku_api_key', pattern: /\bHRKU-[A-Za-z0-9_-]{30,}/g },
  { id: 'sentry_token', pattern: /\bsntry[su]_[A-Za-z0-9_=+/-]{40,}/g },
  { id: 'telegram_bot_token', pattern: /\b\d{8,10}:AA[A-Za-z0-9_-]{33}(?![A-Za-z0-9_-])/g },
  { id: 'tavily_api_key', pattern: /\btvly-(?:dev-|prod-)?[A-Za-z0-9]{32}\b/g },
  { id: 'defined_networking_api_key', pattern: /\bdnkey-[A-Z0-9]{26}-[A-Z0-9]{52}\b/g },
  { id: 'nuget_api_key', pattern: /\boy2[a-z0-9]{43}\b/g },
  { id: 'bitbucket_app_password', pattern: /\bATBB[A-Za-z0-9_=.-]{32}\b/g },
  { id: 'atlassian_api_token', pattern: /\bAT(?:ATT|CTT)3[A-Za-z0-9_=-]{150,}/g },
  { id: 'nkey_seed', pattern: /\bS[UAONCXP][A-Z2-7]{56}\b/g },
  {
    id: 'discord_webhook',
    pattern: /https:\/\/(?:ptb\.|canary\.)?discord(?:app)?\.com\/api\/webhooks\/\d{5,30}\/[A-Za-z0-9_-]{60,}/g,
  },
  { id: 'salesforce_token', pattern: /\b00D[A-Za-z0-9]{12,15}![A-Za-z0-9._]{80,}/g },
  {
    id: 'private_key',
    pattern: /\bLS0tLS1CRUdJTi[A-Za-z0-9+/]{20,}={0,2}/g,
    accept: (v) => {
      // A base64-encoded PEM block (Kubernetes secrets, CI variables); an encrypted key needs its passphrase.
      const pem = Buffer.from(v, 'base64').toString('latin1');
      return /PRIVATE KEY/.test(pem) && !/ENCRYPTED/.test(pem);
    },
  },
  {
    // A whole file base64-encoded (a Kubernetes secret, a CI variable) that holds a private key block somewhere inside.
    id: 'private_key',
    pattern: /(?<![A-Za-z0-9+/])[A-Za-z0-9+/]{200,}={0,2}/g,
    accept: (v) => {
      const decoded = Buffer.from(v, 'base64').toString('latin1');
      return /-{4,5} ?BEGIN[ A-Z0-9]{0,40}PRIVATE KEY/.test(decoded) && !/ENCRYPTED/.test(decoded);
    },
  },
  {
    // Modern API keys: a short lower-case prefix and `_` or `-`, then 30+ random letters and digits (ghp_, glpat-,
    // sk_live_, xoxb-, …, also providers no rule names). Upper, lower case and digits and high entropy are required.
    id: 'prefixed_token',
    pattern: /(?<![\w+/=.-])[a-z][a-z0-9]{1,9}[_-](?:[a-z0-9]{2,8}[_-]){0,2}[A-Za-z0-9]{30,200}(?![\w+/=-])/g,
    accept: (v) => {
      const body = v.replace(/^(?:[a-z0-9]{2,10}[_-])+/, '');
      return (
        body.length >= 30 &&
        /[a-z]/.test(body) &&
        /[A-Z]/.test(body) &&
        /\d/.test(body) &&
        shannonEntropy(body) >= 4 &&
        !isIdentifierOrHash(v, '')
      );
    },
  },
  // Further provider formats with a fixed prefix or signature (public documentation of each provider).
  { id: 'alibaba_access_key_id', pattern: /\bLTAI[A-Za-z0-9]{12,20}\b/g, accept: (v) => mixed(v.slice(4)) },
  { id: 'tencent_secret_id', pattern: /\bAKID[A-Za-z0-9]{13,40}\b/g, accept: (v) => mixed(v.slice(4)) },
  { id: 'docker_swarm_token', pattern: /\bSWM(?:TKN|KEY)-1-[A-Za-z0-9+/-]{40,}/g },
  { id: 'docker_pat', pattern: /\bdckr_pat_[A-Za-z0-9_-]{27,}/g },
  { id: 'jfrog_reference_token', pattern: /\bcmVmdGtuOjAxOj[A-Za-z0-9]{40,}/g },
  // An NTLM authenticate (type 3) message carries the user's credential response.
  { id: 'ntlm_authenticate_message', pattern: /\bTlRMTVNTUAAD[A-Za-z0-9+/]{40,}={0,2}/g },
  { id: 'facebook_access_token', pattern: /\bEAA[A-Za-z0-9]{80,}\b/g, accept: (v) => mixed(v) },
  { id: 'instagram_access_token', pattern: /\bIGQV[A-Za-z0-9_-]{80,}/g },
  { id: 'mailchimp_api_key', pattern: /\b[0-9A-Za-z]{32}-us\d{1,2}\b/g, accept: (v) => mixed(v.slice(0, 32)) },
  {
    // Microsoft's identifiable keys: the `JQQJ9` marker (Azure's common annotated key format), or a provider
    // signature at a fixed place of an 88-character key (+AStk storage, +ASb Service Bus, AzCa Cosmos DB, …).
    id: 'azure_identifiable_key',
    pattern:
      /(?<![A-Za-z0-9+/])(?:[A-Za-z0-9+/]{30,70}JQQJ9[A-Za-z0-9+/]{8,40}={0,2}|[A-Za-z0-9+/]{76}(?:\+AStk|\+ASb|\+AEh|\+ACR|AzCa|AzFu|AzSe|APIM|AZEH)[A-Za-z0-9+/]{3,5}={0,2})(?![A-Za-z0-9+/])/g,
    // The random part before the marker, not `ooooooooo…JQQJ99…` of a documentation key.
    accept: (v) => shannonEntropy(v.split(/JQQJ9|[+A][A-Za-z]{3}[A-Za-z0-9+/]{3,5}=*$/)[0]!) >= 3.5,
  },
  { id: 'google_oauth_client_secret', pattern: /\bGOCSPX-[A-Za-z0-9_-]{28}(?![\w-])/g },
  {
    // The private part of a JSON Web Key: `"d"` (with `"kty"` nearby), the private exponent or scalar.
    id: 'jwk_private_key',
    pattern: /"d"\s{0,3}:\s{0,3}"([A-Za-z0-9_-]{20,})"/dg,
    group: 1,
    keywords: ['"kty"'],
  },
  {
    // Passwords given on a command line: sshpass -p, mysql -p<password>, PowerShell's ConvertTo-SecureString.
    id: 'command_line_password',
    pattern:
      /(?:\bsshpass\s+-p\s*["']?|\bmysql(?:dump|admin)?\b[^\n]{0,80}?\s-p["']?|ConvertTo-SecureString\s+(?:-String\s+)?["'])([^\s"']{6,64})/dgi,
    group: 1,
    accept: strongPassword,
  },
  { id: 'jwt', pattern: /\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{10,}/g },
  {
    id: 'connection_string',
    pattern:
      /\b(?:mongodb(?:\+srv)?|postgres(?:ql)?|mysql|mariadb|redis|rediss|amqps?|mssql|sqlserver):\/\/[^\s:/@]{1,100}:[^\s@/]{1,200}@[^\s/'"]{1,200}/gi,
    accept: connectionPassword,
    ownPlaceholderTest: true,
  },
  {
    id: 'url_credentials',
    pattern: /\b[a-z][a-z0-9+.-]{1,20}:\/\/[^\s:/@'"]{1,100}:[^\s@/'"]{3,200}@[^\s/'"]{1,200}/gi,
    accept: connectionPassword,
    ownPlaceholderTest: true,
  },
  {
    id: 'basic_auth',
    pattern: /(?<=\bBasic\s{1,5})[A-Za-z0-9+/]{8,}={0,2}(?![A-Za-z0-9+/=])/g,
    accept: (v) => {
      const pair = Buffer.from(v, 'base64').toString('latin1');
      const pw = pair.slice(pair.indexOf(':') + 1);
      return /^[\x20-\x7e]+:[\x20-\x7e]+$/.test(pair) && !DOC_PASSWORDS.has(pw.toLowerCase()) && !isPlaceholder(pw);
    },
    ownPlaceholderTest: true,
  },
  { id: 'azure_storage_key', pattern: /(?<=\bAccountKey=)[A-Za-z0-9+/]{80,}={0,2}/g },
  { id: 'bearer_token', pattern: /(?<=\bBearer\s{1,5})[A-Za-z0-9._~+/-]{20,}=*/g },
  {
    // An HTTP Authorization header with any scheme (Token, ApiKey, Key, Bot, Digest, SSWS, …) and API key headers.
    id: 'authorization_header',
    pattern:
      /\b(?:authorization|proxy-authorization|x-[a-z-]{0,20}(?:key|token|secret|auth)|api-?key|x-auth-token)["']?\s{0,3}[:=]\s{0,3}["']?(?:[A-Za-z-]{2,12}\s+)?([A-Za-z0-9._~+/=:-]{16,512})/dgi,
    group: 1,
    accept: (v) => generatedValue(v.replace(/=+$/, '')),
  },
  {
    // Secrets in a URL's query string: ?api_key=…, &access_token=…, &sig=… (Azure SAS), &client_secret=….
    id: 'url_query_secret',
    pattern:
      /[?&](?:api[_-]?key|apikey|key|access[_-]?token|auth[_-]?token|token|sig|signature|client[_-]?secret|secret|password|passwd|pwd)=([A-Za-z0-9._~+/%-]{16,512})/dgi,
    group: 1,
    accept: (v) => generatedValue(decodeURIComponentSafe(v).replace(/=+$/, '')),
  },
  {
    // XML configuration: <add key="ApiKey" value="…"/>, <entry name="clientSecret">…</entry>, <param name=… value=…>.
    id: 'config_entry',
    pattern: new RegExp(
      `\\b(?:key|name|id)["']?\\s*[=:]\\s*["'][\\w.:-]{0,40}?(?:${SECRET_KEY}|${PASSWORD_KEY})[\\w.:-]{0,40}["'](?:\\s+value\\s*=\\s*["']|\\s*,\\s*["']value["']\\s*:\\s*["']|[^<>\\n]{0,80}>)([^\\s"'<>]{6,200})`,
      'dgi',
    ),
    group: 1,
    accept: (v) => strongPassword(v) || generatedValue(v),
  },
  {
    // Credentials on a command line: curl -u user:password, --api-token/--secret/--access-key value.
    id: 'command_line_password',
    pattern:
      /(?:\bcurl\b[^\n]{0,200}?\s(?:-u|--user)\s+["']?[^\s:"']{1,64}:|\s--?(?:api[_-]?key|api[_-]?token|auth[_-]?token|access[_-]?token|token|secret|client[_-]?secret|access[_-]?key|secret[_-]?key)[=\s]\s*["']?)([^\s"']{6,200})/dgi,
    group: 1,
    accept: (v) => strongPassword(v) || generatedValue(v),
  },
  {
    // A .netrc entry: machine <host> login <user> password <password>.
    id: 'password',
    pattern: /\bmachine\s+\S+\s+login\s+\S+\s+password\s+(\S{4,256})/dg,
    group: 1,
    accept: hardCodedPassword,
  },
  {
    // C preprocessor and assembler constants: #define API_TOKEN "…", %define token ….
    id: 'generic_secret',
    pattern: new RegExp(`[#%]define\\s+\\w{0,30}?(?:${SECRET_KEY}|${PASSWORD_KEY})\\w{0,30}\\s+${VALUE}`, 'dgi'),
    group: VALUE_GROUPS,
    accept: (v) => strongPassword(v) || generatedValue(v),
  },
  {
    id: 'password',
    pattern: new RegExp(`${PASSWORD_KEY}(?:[_.]?[A-Za-z0-9]){0,12}?${separator(PASSWORD_KEY)}${VALUE}`, 'gid'),
    group: VALUE_GROUPS,
    // Not an English word that holds `pass`: bypass, compass, passed, passing, passport, ….
    context: (m, before) =>
      !/(?:by|com|sur|tres|over|under|im)$/i.test(before) && !/^pass(?:ed|ing|es|age|port|ive|through)/i.test(m),
    // A quoted literal (group 2) is a hard-coded password even when weak (`"hunter22"`); a bare value must be strong.
    accept: (v, group) => (group === 2 ? hardCodedPassword(v) : strongPassword(v)),
  },
  {
    id: 'generic_secret',
    pattern: new RegExp(`${SECRET_KEY}[\\w.-]{0,40}?${separator(SECRET_KEY)}${VALUE}`, 'gid'),
    group: VALUE_GROUPS,
    accept: generatedValue,
  },
];
