import type { ModelMessage, ModelReply, ModelTool, ToolChoice } from '../inference.types';

/** What one model call asks, independent of the provider's protocol. */
export interface ModelRequest {
  model: string;
  /** Empty when the agent has no system prompt. */
  system: string;
  /** History, the new user message, then any tool calls and their results, oldest first. */
  messages: ModelMessage[];
  /** Functions the model may call; none when empty or absent. */
  tools?: ModelTool[];
  /** A tool call is required on this call (any, or the one named); absent: the model decides. */
  toolChoice?: ToolChoice;
  temperature?: number | null;
  top_p?: number | null;
  /** `{type: "text" | "json_object" | "json_schema", json_schema?}`, as stored on the agent. */
  response_format?: Record<string, unknown> | null;
  /** The agent's `additional_model_params` (max_tokens, seed, stop, ...), passed to the provider. */
  params: Record<string, unknown>;
}

/** Where and with which key a call goes. The key never leaves the request headers. */
export interface ProviderTarget {
  providerId: string;
  baseUrl: string;
  apiKey: string;
}

export interface HttpCall {
  url: string;
  headers: Record<string, string>;
  body: Record<string, unknown>;
}

/** One wire protocol (OpenAI chat completions, Anthropic Messages). */
export interface ProviderAdapter {
  readonly protocol: 'openai' | 'anthropic';
  build(target: ProviderTarget, req: ModelRequest): HttpCall;
  /** The reply of a 2xx response; throws ProviderReplyError when it has no usable answer. */
  parse(data: unknown, req: ModelRequest): ModelReply;
}

/** The tool calls of a message, or null when it is not a request for tool calls. */
export function toolCallsOf(m: ModelMessage) {
  return 'toolCalls' in m ? m.toolCalls : null;
}

/** Arguments JSON text as an object (what Anthropic's `input` holds); `{}` when it does not parse to one. */
export function argumentsObject(text: string): Record<string, unknown> {
  try {
    const v: unknown = JSON.parse(text || '{}');
    return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

/** A 2xx response without a usable answer. */
export class ProviderReplyError extends Error {}

/** True when the agent asks for JSON output. */
export function wantsJson(format: Record<string, unknown> | null | undefined): boolean {
  return format?.type === 'json_object' || format?.type === 'json_schema';
}

/** A number field of an object, or 0. */
export function count(obj: Record<string, unknown> | undefined, key: string): number {
  const v = obj?.[key];
  return typeof v === 'number' && Number.isFinite(v) ? v : 0;
}

/** additional_model_params without the fields the adapter owns (they cannot be overridden that way). */
export function extraParams(params: Record<string, unknown>, owned: readonly string[]): Record<string, unknown> {
  return Object.fromEntries(Object.entries(params).filter(([k]) => !owned.includes(k)));
}
