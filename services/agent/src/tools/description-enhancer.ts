import type { Logger } from '@platform/logger';
import type { OutboundClient } from '@platform/outbound';

import { openAiAdapter } from '../inference/providers/openai.adapter';
import type { ModelRequest } from '../inference/providers/provider.types';
import { MAX_DESCRIPTION_CHARS } from './openapi-import';
import type { Operation } from './tool.types';

export interface DescriptionEnhancerDeps {
  outbound: OutboundClient;
  /** An OpenAI chat-completions endpoint's base URL (`.../v1`). */
  baseUrl: string;
  model: string;
  timeoutMs: number;
  logger: Logger;
}

const INSTRUCTION =
  'You improve the descriptions of HTTP API operations so that an AI agent can choose and call the right one. ' +
  'You get a JSON object mapping operation keys to {method, path, description}. Reply with one JSON object mapping ' +
  `each key to a clear description of what the operation does and when to use it (at most ${MAX_DESCRIPTION_CHARS} ` +
  'characters), and nothing else.';

function improved(content: string): Record<string, unknown> {
  const parsed: unknown = JSON.parse(content.trim().replace(/^```(?:json)?\s*([\s\S]*?)\s*```$/i, '$1'));
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
    throw new Error('the reply is not a JSON object');
  return parsed as Record<string, unknown>;
}

/**
 * Asks an OpenAI-protocol model to rewrite operation descriptions. Never fails: on any error it logs a warning
 * (never the key) and returns the operations unchanged; a key the model leaves out keeps its description.
 */
export function createDescriptionEnhancer(deps: DescriptionEnhancerDeps) {
  async function ask(apiKey: string, ops: Operation[]): Promise<Record<string, unknown>> {
    const listing = Object.fromEntries(
      ops.map((o) => [o.key, { method: o.method.toUpperCase(), path: o.path, description: o.description }]),
    );
    const req: ModelRequest = {
      model: deps.model,
      system: INSTRUCTION,
      messages: [{ role: 'user', content: JSON.stringify(listing) }],
      response_format: { type: 'json_object' },
      params: {},
    };
    // The OpenAI adapter inference uses writes the call and reads the reply; one attempt, within this timeout.
    const call = openAiAdapter.build({ providerId: 'openai', baseUrl: deps.baseUrl, apiKey }, req);
    const res = await deps.outbound.request({ ...call, method: 'POST', timeoutMs: deps.timeoutMs, maxRedirects: 0 });
    if (res.status < 200 || res.status >= 300) throw new Error(`status ${res.status}`);
    return improved(openAiAdapter.parse(res.data, req).text);
  }

  return {
    async enhance(apiKey: string, ops: Operation[]): Promise<Operation[]> {
      try {
        const better = await ask(apiKey, ops);
        return ops.map((o) => {
          const d = better[o.key];
          return typeof d === 'string' && d.trim() !== ''
            ? { ...o, description: d.trim().slice(0, MAX_DESCRIPTION_CHARS) }
            : o;
        });
      } catch (err) {
        const reason = (err instanceof Error ? err.message : String(err)).split(apiKey).join('***').slice(0, 300);
        deps.logger.warn('tool description enhancement failed; originals kept', { reason, operations: ops.length });
        return ops;
      }
    },
  };
}

export type DescriptionEnhancer = ReturnType<typeof createDescriptionEnhancer>;
