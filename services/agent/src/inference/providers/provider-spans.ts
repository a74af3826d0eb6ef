import type { Attributes } from '@platform/tracing';

import type { ModelReply } from '../inference.types';
import type { ModelRequest, ProviderTarget } from './provider.types';

/** What a `provider call` span says of the call (OpenTelemetry's gen_ai conventions): provider, model, host. */
export function providerAttributes(target: ProviderTarget, req: ModelRequest, url: string): Attributes {
  return {
    'gen_ai.system': target.providerId,
    'gen_ai.request.model': req.model,
    'server.address': new URL(url).host,
  };
}

/** The tokens a reply used, when the provider said. */
export function usageAttributes(reply: ModelReply): Attributes {
  if (!reply.usage) return {};
  return {
    'gen_ai.usage.input_tokens': reply.usage.prompt_tokens,
    'gen_ai.usage.output_tokens': reply.usage.completion_tokens,
  };
}
