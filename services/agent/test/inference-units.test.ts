import { loadConfig } from '@platform/config';

import { configSchema } from '../src/config';
import { contextWindow } from '../src/inference/features/memory.feature';
import { substituteVariables } from '../src/inference/prompt-variables';
import { anthropicAdapter } from '../src/inference/providers/anthropic.adapter';
import { findProvider } from '../src/inference/providers/provider-registry';
import { MAX_RETRY_WAIT_MS, retryAfterMs, retryDelayMs } from '../src/inference/providers/retry-policy';

describe('system prompt variables', () => {
  it('substitutes {{name}} and {{ name }}, leaves single braces and unknown names, never expands twice', () => {
    const out = substituteVariables('Hi {{name}}, {{ n }} items, {json: 1}, {name}, {{missing}}, {{nested}}', {
      name: 'Ada',
      n: 3,
      nested: '{{name}}',
    });
    expect(out).toBe('Hi Ada, 3 items, {json: 1}, {name}, {{missing}}, {{name}}');
  });
  it('objects go in as JSON, null as nothing; inherited properties are not variables', () => {
    expect(substituteVariables('{{o}}|{{z}}|{{toString}}', { o: { a: [1] }, z: null })).toBe('{"a":[1]}||{{toString}}');
  });
});

describe('provider registry', () => {
  it.each([
    ['OpenAI', 'openai', 'https://api.openai.com/v1'],
    ['groq', 'groq', 'https://api.groq.com/openai/v1'],
    ['Together', 'together', 'https://api.together.xyz/v1'],
    ['together_ai', 'together', 'https://api.together.xyz/v1'],
    ['ANTHROPIC', 'anthropic', 'https://api.anthropic.com/v1'],
    ['vLLM', 'vllm', null],
    ['ollama', 'ollama', null],
    ['llama.cpp', 'llamacpp', null],
    ['openai_compatible', 'openai-compatible', null],
  ])('%s → %s (default base_url %s)', (given, id, base) => {
    expect(findProvider(given)).toMatchObject({ id, defaultBaseUrl: base });
  });
  it.each([null, '', 'mystery'])('%j → unknown', (given) => {
    expect(findProvider(given)).toBeNull();
  });
});

describe('retry policy', () => {
  const now = Date.parse('2030-01-01T00:00:00Z');
  it('reads Retry-After as seconds, as an HTTP date, and retry-after-ms', () => {
    expect(retryAfterMs({ 'retry-after': '3' }, now)).toBe(3000);
    expect(retryAfterMs({ 'retry-after': 'Tue, 01 Jan 2030 00:00:05 GMT' }, now)).toBe(5000);
    expect(retryAfterMs({ 'retry-after': 'Mon, 31 Dec 2029 23:00:00 GMT' }, now)).toBe(0);
    expect(retryAfterMs({ 'retry-after-ms': '250', 'retry-after': '9' }, now)).toBe(250);
    expect(retryAfterMs({ 'retry-after': 'soon' }, now)).toBeUndefined();
    expect(retryAfterMs({}, now)).toBeUndefined();
  });
  it('caps a long Retry-After and backs off exponentially otherwise', () => {
    expect(retryDelayMs(0, 3_600_000)).toBe(MAX_RETRY_WAIT_MS);
    expect(retryDelayMs(0, undefined, () => 0)).toBe(500);
    expect(retryDelayMs(1, undefined, () => 0)).toBe(1000);
    expect(retryDelayMs(1, undefined, () => 0.999)).toBe(1249);
  });
});

it('memory window: max_messages_context_count when sane, else 10, at most 100', () => {
  expect(contextWindow({ max_messages_context_count: 4 })).toBe(4);
  expect(contextWindow({ max_messages_context_count: 0 })).toBe(0);
  expect(contextWindow({ max_messages_context_count: 5000 })).toBe(100);
  for (const bad of [undefined, -1, 2.5, '7']) expect(contextWindow({ max_messages_context_count: bad })).toBe(10);
});

it('Anthropic: history is made to alternate starting with the user; empty messages are not sent empty', () => {
  const call = anthropicAdapter.build(
    { providerId: 'anthropic', baseUrl: 'https://api.anthropic.com/v1/', apiKey: 'k' },
    {
      model: 'm',
      system: '',
      messages: [
        { role: 'assistant', content: 'orphan reply' },
        { role: 'user', content: 'a' },
        { role: 'user', content: 'b' },
        { role: 'assistant', content: 'c' },
        { role: 'user', content: '' },
      ],
      params: {},
    },
  );
  expect(call.url).toBe('https://api.anthropic.com/v1/messages');
  expect(call.body.messages).toEqual([
    { role: 'user', content: 'a\n\nb' },
    { role: 'assistant', content: 'c' },
    { role: 'user', content: '(empty message)' },
  ]);
  expect(call.body).not.toHaveProperty('system');
});

describe('config', () => {
  const base = { CREDENTIALS_ENCRYPTION_KEY: 'ab'.repeat(32) };
  it('defaults: 60 s provider timeout, empty allow-list, internal path off', () => {
    expect(loadConfig(configSchema, base)).toMatchObject({ PROVIDER_TIMEOUT_MS: 60000, OUTBOUND_ALLOW_HOSTS: '' });
    expect(loadConfig(configSchema, base)).not.toHaveProperty('INTERNAL_SERVICE_SECRET');
  });
  it.each([
    ['PROVIDER_TIMEOUT_MS', '10'],
    ['OUTBOUND_ALLOW_HOSTS', 'http://x'],
    ['INTERNAL_SERVICE_SECRET', 'short'],
  ])('rejects %s=%s', (name, value) => {
    expect(() => loadConfig(configSchema, { ...base, [name]: value })).toThrow(name);
  });
});

it('Anthropic: a required tool call is tool_choice any or tool; a reply cut at max_tokens is truncated', () => {
  const target = { providerId: 'anthropic', baseUrl: 'https://api.anthropic.com/v1', apiKey: 'k' };
  const tools = [{ name: 'get_weather', description: '', parameters: { type: 'object' } }];
  const req = { model: 'm', system: '', messages: [{ role: 'user' as const, content: 'a' }], params: {}, tools };
  expect(anthropicAdapter.build(target, { ...req, toolChoice: 'required' }).body.tool_choice).toEqual({ type: 'any' });
  expect(anthropicAdapter.build(target, { ...req, toolChoice: { name: 'get_weather' } }).body.tool_choice).toEqual({
    type: 'tool',
    name: 'get_weather',
  });
  expect(anthropicAdapter.build(target, req).body).not.toHaveProperty('tool_choice');
  const reply = { content: [{ type: 'text', text: 'Once upon a' }], stop_reason: 'max_tokens' };
  expect(anthropicAdapter.parse(reply, req)).toEqual({ text: 'Once upon a', usage: null, truncated: true });
  expect(anthropicAdapter.parse({ ...reply, stop_reason: 'end_turn' }, req)).toEqual({
    text: 'Once upon a',
    usage: null,
  });
});
