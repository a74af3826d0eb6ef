/**
 * Secret patterns after gitleaks' rule set (MIT): provider key formats with fixed prefixes, tokens, JWTs, private
 * key blocks and connection strings with a password. Each pattern is anchored on its prefix, so a scan is linear.
 */
export interface SecretRule {
  id: string;
  pattern: RegExp;
  /** A further test of a match (e.g. placeholders such as YOUR_API_KEY are not secrets). */
  accept?: (match: string) => boolean;
}

/** A value that mixes letters and digits, as generated secrets do and placeholders (`YOUR_API_KEY`, `changeme`) do not. */
const mixed = (v: string) => /\d/.test(v) && /[A-Za-z]/.test(v);

export const SECRET_RULES: SecretRule[] = [
  {
    id: 'private_key',
    pattern:
      /-----BEGIN[ A-Z0-9]{0,40}PRIVATE KEY(?: BLOCK)?-----[\s\S]{16,10000}?-----END[ A-Z0-9]{0,40}PRIVATE KEY(?: BLOCK)?-----/g,
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
  { id: 'jwt', pattern: /\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{10,}/g },
  {
    id: 'connection_string',
    pattern:
      /\b(?:mongodb(?:\+srv)?|postgres(?:ql)?|mysql|mariadb|redis|rediss|amqps?|mssql|sqlserver):\/\/[^\s:/@]{1,100}:[^\s@/]{1,200}@[^\s/'"]{1,200}/gi,
  },
  { id: 'bearer_token', pattern: /(?<=\bBearer\s{1,5})[A-Za-z0-9._~+/-]{20,}=*/g },
  {
    id: 'generic_secret',
    pattern:
      /(?<=\b(?:api[_-]?key|apikey|secret[_-]?key|client[_-]?secret|access[_-]?token|auth[_-]?token|password|passwd|token)\s{0,3}["']?\s{0,3}[=:]\s{0,3}["']?)[A-Za-z0-9._~+/!#$%^&*-]{12,}/gi,
    accept: mixed,
  },
];
