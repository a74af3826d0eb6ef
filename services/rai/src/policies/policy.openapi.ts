/** OpenAPI schemas of policies and evaluations. */
import { PII_TYPES } from '../checks/pii-patterns';

const str = { type: 'string' };
const bool = { type: 'boolean', default: false };
const term = (action: string) => ({
  oneOf: [
    { type: 'string', maxLength: 200 },
    {
      type: 'object',
      required: ['label'],
      properties: {
        label: { type: 'string', maxLength: 200 },
        replacement: { type: 'string', default: '[REDACTED]' },
        action: { type: 'string', enum: ['block', 'redact'], default: action },
      },
    },
  ],
});
const topics = {
  type: 'object',
  properties: {
    enabled: bool,
    topics: {
      type: 'array',
      maxItems: 100,
      items: { oneOf: [{ type: 'string' }, { type: 'object', required: ['name'], properties: { name: str } }] },
    },
  },
};
const threshold = (d: number) => ({
  type: 'object',
  properties: { enabled: bool, threshold: { type: 'number', minimum: 0, maximum: 1, default: d } },
});

const sections = {
  allowed_topics: topics,
  banned_topics: topics,
  keywords: {
    type: 'object',
    properties: { enabled: bool, keywords: { type: 'array', maxItems: 500, items: term('block') } },
  },
  toxicity_check: threshold(0.4),
  prompt_injection: threshold(0.3),
  secrets_detection: {
    type: 'object',
    properties: { enabled: bool, action: { type: 'string', enum: ['mask', 'block'], default: 'mask' } },
  },
  pii_detection: {
    type: 'object',
    properties: {
      enabled: bool,
      types: {
        type: 'object',
        properties: Object.fromEntries(
          PII_TYPES.map((t) => [t, { type: 'string', enum: ['disabled', 'redact', 'block'], default: 'disabled' }]),
        ),
      },
      custom_pii: { type: 'array', maxItems: 500, items: term('redact') },
    },
  },
};

export const policySchemas = {
  PolicyBody: {
    type: 'object',
    required: ['name'],
    properties: {
      name: { type: 'string', maxLength: 200 },
      description: { type: 'string', maxLength: 2000 },
      ...sections,
    },
  },
  PolicyUpdate: {
    type: 'object',
    properties: {
      name: { type: 'string', maxLength: 200 },
      description: { type: 'string', maxLength: 2000 },
      ...sections,
    },
  },
  Policy: {
    type: 'object',
    properties: {
      _id: str,
      id: str,
      user_id: str,
      name: str,
      description: str,
      ...sections,
      created_at: { type: 'string', format: 'date-time' },
      updated_at: { type: 'string', format: 'date-time' },
    },
  },
  PolicyList: {
    type: 'object',
    properties: {
      policies: { type: 'array', items: { $ref: '#/components/schemas/Policy' } },
      total: { type: 'integer' },
    },
  },
  InferenceBody: {
    type: 'object',
    required: ['policy_id', 'text'],
    properties: {
      policy_id: str,
      text: { type: 'string', maxLength: 100000 },
      direction: { type: 'string', enum: ['input', 'output'], default: 'input' },
    },
  },
  Evaluation: {
    type: 'object',
    properties: {
      allowed: { type: 'boolean' },
      action: { type: 'string', enum: ['allow', 'redact', 'block'] },
      text: { type: 'string', description: 'The text with every redaction applied.' },
      violations: {
        type: 'array',
        items: { type: 'object', properties: { check: str, score: { type: 'number' }, detail: str } },
      },
    },
  },
};
