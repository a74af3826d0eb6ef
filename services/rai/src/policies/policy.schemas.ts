import Joi from 'joi';

import { pageQuery } from '@platform/http';

import { PII_TYPES } from '../checks/pii-patterns';

/** Limits of a policy, so that one inference stays within its latency budget. */
export const POLICY_LIMITS = { topics: 100, terms: 500, termChars: 200, name: 200, description: 2000 } as const;

const label = Joi.string().trim().min(1).max(POLICY_LIMITS.termChars);

/** A topic: a string, or `{name}` stored as the string (contract §7). */
const topic = Joi.alternatives().try(
  label,
  Joi.object({ name: label.required() }).custom((v: { name: string }) => v.name),
);

/** A keyword or custom PII entry: a string (spec) or `{label, replacement, action}` (contract §6). */
const term = (defaultAction: 'block' | 'redact') =>
  Joi.alternatives().try(
    label,
    Joi.object({
      label: label.required(),
      replacement: Joi.string().max(POLICY_LIMITS.termChars).allow('').default('[REDACTED]'),
      action: Joi.string().valid('block', 'redact').default(defaultAction),
    }),
  );

const enabled = Joi.boolean().default(false);
const topics = Joi.object({ enabled, topics: Joi.array().items(topic).max(POLICY_LIMITS.topics).default([]) });
const threshold = (d: number) => Joi.object({ enabled, threshold: Joi.number().min(0).max(1).default(d) });
const piiTypes = Joi.object(
  Object.fromEntries(PII_TYPES.map((t) => [t, Joi.string().valid('disabled', 'redact', 'block').default('disabled')])),
);

/** The rule sections; each may be left out (its defaults apply) or given in part. */
const sections = {
  allowed_topics: topics,
  banned_topics: topics,
  keywords: Joi.object({ enabled, keywords: Joi.array().items(term('block')).max(POLICY_LIMITS.terms).default([]) }),
  toxicity_check: threshold(0.4),
  prompt_injection: threshold(0.3),
  secrets_detection: Joi.object({ enabled, action: Joi.string().valid('mask', 'block').default('mask') }),
  pii_detection: Joi.object({
    enabled,
    types: piiTypes.default(),
    custom_pii: Joi.array().items(term('redact')).max(POLICY_LIMITS.terms).default([]),
  }),
};

const withDefaults = Object.fromEntries(Object.entries(sections).map(([k, s]) => [k, s.default()]));
const name = Joi.string().trim().min(1).max(POLICY_LIMITS.name);
const description = Joi.string().max(POLICY_LIMITS.description).allow('', null).empty(null);

export const createBody = Joi.object({ name: name.required(), description: description.default(''), ...withDefaults });

/** PUT: any field; each section given replaces that section (its own defaults filling what it leaves out). */
export const updateBody = Joi.object({ name, description, ...sections });

export const listQuery = Joi.object(pageQuery);

/** Largest text one inference checks. */
export const MAX_TEXT_CHARS = 100_000;

export const inferenceBody = Joi.object({
  policy_id: Joi.string().required(),
  text: Joi.string().allow('').max(MAX_TEXT_CHARS).required(),
  direction: Joi.string().valid('input', 'output').default('input'),
});
