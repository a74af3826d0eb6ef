// Generated from policy.schemas.ts by `pnpm schemas:types` (scripts/schema-types.cjs): edit the schemas, not this file.

export interface PolicyBody {
  name: string;
  description: string;
  allowed_topics: {
    enabled: boolean;
    topics: (
      | string
      | {
          name: string;
        }
    )[];
  };
  banned_topics: {
    enabled: boolean;
    topics: (
      | string
      | {
          name: string;
        }
    )[];
  };
  keywords: {
    enabled: boolean;
    keywords: (
      | string
      | {
          label: string;
          replacement: string;
          action: 'block' | 'redact';
        }
    )[];
  };
  toxicity_check: {
    enabled: boolean;
    threshold: number;
  };
  prompt_injection: {
    enabled: boolean;
    threshold: number;
  };
  secrets_detection: {
    enabled: boolean;
    action: 'mask' | 'block';
  };
  pii_detection: {
    enabled: boolean;
    types: {
      CREDIT_CARD: 'disabled' | 'redact' | 'block';
      EMAIL_ADDRESS: 'disabled' | 'redact' | 'block';
      PHONE_NUMBER: 'disabled' | 'redact' | 'block';
      PERSON: 'disabled' | 'redact' | 'block';
      LOCATION: 'disabled' | 'redact' | 'block';
      IP_ADDRESS: 'disabled' | 'redact' | 'block';
      US_SSN: 'disabled' | 'redact' | 'block';
      URL: 'disabled' | 'redact' | 'block';
      DATE_TIME: 'disabled' | 'redact' | 'block';
    };
    custom_pii: (
      | string
      | {
          label: string;
          replacement: string;
          action: 'block' | 'redact';
        }
    )[];
  };
  llm_judge: {
    enabled: boolean;
    /**
     * One of the owner's LLM credentials (agent service), opened for each review; required when enabled.
     */
    credential_id: string | null;
    /**
     * The chat model asked (OpenAI protocol); required when enabled.
     */
    model: string | null;
    /**
     * Which of the policy's enabled checks get a second opinion.
     */
    checks: ('prompt_injection' | 'toxicity' | 'topics')[];
    timeout_ms: number;
    /**
     * When the judge fails or times out: allow keeps the local verdict (fail open), block blocks.
     */
    on_error: 'allow' | 'block';
  };
  /**
   * Stored only: kept and returned with its defaults, not acted on (no NSFW check runs; toxicity_check covers abusive and sexual language).
   */
  nsfw_check: {
    enabled: boolean;
    threshold: number;
    /**
     * Whole text (full) or part by part (partial, sentence), as the hosted product names them.
     */
    validation_method: 'full' | 'partial' | 'sentence';
  };
}

export interface Evaluation {
  allowed: boolean;
  action: 'allow' | 'redact' | 'block';
  /**
   * The text with every redaction applied.
   */
  text: string;
  violations: {
    check: string;
    score?: number;
    detail: string;
  }[];
}

export interface InferenceBody {
  policy_id: string;
  text: string;
  direction: 'input' | 'output';
}

export interface PolicyListQuery {
  /**
   * Items to skip
   */
  skip: number;
  /**
   * Items to return at most
   */
  limit: number;
}

export interface PolicyList {
  policies: Policy[];
  total: number;
}

export interface PolicyPath {
  policy_id: string;
}

export interface Policy {
  _id: string;
  id: string;
  user_id: string;
  name: string;
  description: string;
  allowed_topics: {
    enabled: boolean;
    topics: string[];
  };
  banned_topics: {
    enabled: boolean;
    topics: string[];
  };
  keywords: {
    enabled: boolean;
    keywords: (
      | string
      | {
          label: string;
          replacement: string;
          action: 'block' | 'redact';
        }
    )[];
  };
  toxicity_check: {
    enabled: boolean;
    threshold: number;
  };
  prompt_injection: {
    enabled: boolean;
    threshold: number;
  };
  secrets_detection: {
    enabled: boolean;
    action: 'mask' | 'block';
  };
  pii_detection: {
    enabled: boolean;
    types: {
      CREDIT_CARD: 'disabled' | 'redact' | 'block';
      EMAIL_ADDRESS: 'disabled' | 'redact' | 'block';
      PHONE_NUMBER: 'disabled' | 'redact' | 'block';
      PERSON: 'disabled' | 'redact' | 'block';
      LOCATION: 'disabled' | 'redact' | 'block';
      IP_ADDRESS: 'disabled' | 'redact' | 'block';
      US_SSN: 'disabled' | 'redact' | 'block';
      URL: 'disabled' | 'redact' | 'block';
      DATE_TIME: 'disabled' | 'redact' | 'block';
    };
    custom_pii: (
      | string
      | {
          label: string;
          replacement: string;
          action: 'block' | 'redact';
        }
    )[];
  };
  llm_judge: {
    enabled: boolean;
    /**
     * One of the owner's LLM credentials (agent service), opened for each review; required when enabled.
     */
    credential_id: string | null;
    /**
     * The chat model asked (OpenAI protocol); required when enabled.
     */
    model: string | null;
    /**
     * Which of the policy's enabled checks get a second opinion.
     */
    checks: ('prompt_injection' | 'toxicity' | 'topics')[];
    timeout_ms: number;
    /**
     * When the judge fails or times out: allow keeps the local verdict (fail open), block blocks.
     */
    on_error: 'allow' | 'block';
  };
  /**
   * Stored only: kept and returned with its defaults, not acted on (no NSFW check runs; toxicity_check covers abusive and sexual language).
   */
  nsfw_check: {
    enabled: boolean;
    threshold: number;
    /**
     * Whole text (full) or part by part (partial, sentence), as the hosted product names them.
     */
    validation_method: 'full' | 'partial' | 'sentence';
  };
  created_at: string;
  updated_at: string;
}

export interface PolicyUpdate {
  name?: string;
  description?: string;
  allowed_topics?: {
    enabled: boolean;
    topics: (
      | string
      | {
          name: string;
        }
    )[];
  };
  banned_topics?: {
    enabled: boolean;
    topics: (
      | string
      | {
          name: string;
        }
    )[];
  };
  keywords?: {
    enabled: boolean;
    keywords: (
      | string
      | {
          label: string;
          replacement: string;
          action: 'block' | 'redact';
        }
    )[];
  };
  toxicity_check?: {
    enabled: boolean;
    threshold: number;
  };
  prompt_injection?: {
    enabled: boolean;
    threshold: number;
  };
  secrets_detection?: {
    enabled: boolean;
    action: 'mask' | 'block';
  };
  pii_detection?: {
    enabled: boolean;
    types: {
      CREDIT_CARD: 'disabled' | 'redact' | 'block';
      EMAIL_ADDRESS: 'disabled' | 'redact' | 'block';
      PHONE_NUMBER: 'disabled' | 'redact' | 'block';
      PERSON: 'disabled' | 'redact' | 'block';
      LOCATION: 'disabled' | 'redact' | 'block';
      IP_ADDRESS: 'disabled' | 'redact' | 'block';
      US_SSN: 'disabled' | 'redact' | 'block';
      URL: 'disabled' | 'redact' | 'block';
      DATE_TIME: 'disabled' | 'redact' | 'block';
    };
    custom_pii: (
      | string
      | {
          label: string;
          replacement: string;
          action: 'block' | 'redact';
        }
    )[];
  };
  llm_judge?: {
    enabled: boolean;
    /**
     * One of the owner's LLM credentials (agent service), opened for each review; required when enabled.
     */
    credential_id: string | null;
    /**
     * The chat model asked (OpenAI protocol); required when enabled.
     */
    model: string | null;
    /**
     * Which of the policy's enabled checks get a second opinion.
     */
    checks: ('prompt_injection' | 'toxicity' | 'topics')[];
    timeout_ms: number;
    /**
     * When the judge fails or times out: allow keeps the local verdict (fail open), block blocks.
     */
    on_error: 'allow' | 'block';
  };
  /**
   * Stored only: kept and returned with its defaults, not acted on (no NSFW check runs; toxicity_check covers abusive and sexual language).
   */
  nsfw_check?: {
    enabled: boolean;
    threshold: number;
    /**
     * Whole text (full) or part by part (partial, sentence), as the hosted product names them.
     */
    validation_method: 'full' | 'partial' | 'sentence';
  };
}
