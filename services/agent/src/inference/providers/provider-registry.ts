import { anthropicAdapter } from './anthropic.adapter';
import { openAiAdapter } from './openai.adapter';
import type { ProviderAdapter } from './provider.types';

export interface ProviderSpec {
  /** The canonical provider id. */
  id: string;
  adapter: ProviderAdapter;
  /** Used when the credential has no base_url; null when the provider is self-hosted and needs one. */
  defaultBaseUrl: string | null;
}

const PROVIDERS: ProviderSpec[] = [
  { id: 'openai', adapter: openAiAdapter, defaultBaseUrl: 'https://api.openai.com/v1' },
  { id: 'groq', adapter: openAiAdapter, defaultBaseUrl: 'https://api.groq.com/openai/v1' },
  { id: 'together', adapter: openAiAdapter, defaultBaseUrl: 'https://api.together.xyz/v1' },
  { id: 'vllm', adapter: openAiAdapter, defaultBaseUrl: null },
  { id: 'ollama', adapter: openAiAdapter, defaultBaseUrl: null },
  { id: 'llamacpp', adapter: openAiAdapter, defaultBaseUrl: null },
  { id: 'openai-compatible', adapter: openAiAdapter, defaultBaseUrl: null },
  { id: 'anthropic', adapter: anthropicAdapter, defaultBaseUrl: 'https://api.anthropic.com/v1' },
];

/** Other spellings clients use for the same providers. */
const ALIASES: Record<string, string> = {
  openai_compatible: 'openai-compatible',
  'llama.cpp': 'llamacpp',
  'llama-cpp': 'llamacpp',
  llama_cpp: 'llamacpp',
  togetherai: 'together',
  together_ai: 'together',
  'together-ai': 'together',
  claude: 'anthropic',
};

/** Provider ids accepted (case-insensitively), for error messages and docs. */
export const SUPPORTED_PROVIDER_IDS = PROVIDERS.map((p) => p.id);

/** The provider for an agent's `provider_id`, matched case-insensitively; null when unknown. */
export function findProvider(providerId: string | null | undefined): ProviderSpec | null {
  if (!providerId) return null;
  const key = providerId.trim().toLowerCase();
  const id = ALIASES[key] ?? key;
  return PROVIDERS.find((p) => p.id === id) ?? null;
}
