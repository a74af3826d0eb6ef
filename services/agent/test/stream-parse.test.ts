import { sseEvents } from '../src/inference/providers/sse';
import { anthropicPiece, openAiPiece } from '../src/inference/providers/stream-events';

async function* chunks(...parts: string[]): AsyncGenerator<Buffer> {
  for (const p of parts) yield Buffer.from(p, 'utf8');
}

async function all(body: AsyncIterable<Buffer>) {
  const out = [];
  for await (const e of sseEvents(body)) out.push(e);
  return out;
}

describe('sseEvents', () => {
  it('reassembles events split anywhere, with CRLF, comments, named events and multi-line data', async () => {
    const euro = Buffer.from('€', 'utf8');
    const body = (async function* () {
      yield* chunks(
        ': keep-alive\r\n\r\nda',
        'ta: {"a":',
        '1}\r\n\r\nevent: error\ndata: line one\ndata: line two\n\n',
      );
      yield Buffer.concat([Buffer.from('data: '), euro.subarray(0, 1)]);
      yield Buffer.concat([euro.subarray(1), Buffer.from('\n\n')]);
      yield Buffer.from('data: last');
    })();
    // A character split between chunks survives; the last event has no blank line after it and still counts.
    expect(await all(body)).toEqual([
      { event: 'message', data: '{"a":1}' },
      { event: 'error', data: 'line one\nline two' },
      { event: 'message', data: '€' },
      { event: 'message', data: 'last' },
    ]);
  });
});

describe('provider stream pieces', () => {
  it('OpenAI: content deltas, a usage-only chunk, tool-call deltas, errors and [DONE]', () => {
    expect(openAiPiece('{"choices":[{"index":0,"delta":{"content":"Hi"}}]}')).toEqual({ text: 'Hi' });
    expect(openAiPiece('{"choices":[],"usage":{"prompt_tokens":3,"completion_tokens":2,"total_tokens":5}}')).toEqual({
      usage: { prompt_tokens: 3, completion_tokens: 2, total_tokens: 5 },
    });
    expect(openAiPiece('{"choices":[{"delta":{"tool_calls":[{"index":0,"id":"c1"}]}}]}')).toEqual({ toolCall: true });
    expect(openAiPiece('{"error":{"message":"overloaded"}}')).toEqual({ error: 'overloaded' });
    expect(openAiPiece('{"choices":[{"index":0,"delta":{},"finish_reason":"length"}]}')).toEqual({ truncated: true });
    expect(openAiPiece('[DONE]')).toEqual({ done: true });
    expect(openAiPiece('not json')).toEqual({});
  });

  it('Anthropic: message_start usage, text deltas, tool_use blocks, message_delta tokens, errors and message_stop', () => {
    expect(
      anthropicPiece(
        'message_start',
        '{"type":"message_start","message":{"usage":{"input_tokens":10,"cache_read_input_tokens":2,"output_tokens":1}}}',
      ),
    ).toEqual({
      usage: { prompt_tokens: 12, completion_tokens: 1, total_tokens: 13 },
    });
    expect(
      anthropicPiece(
        'content_block_delta',
        '{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Hi"}}',
      ),
    ).toEqual({ text: 'Hi' });
    expect(
      anthropicPiece(
        'content_block_delta',
        '{"type":"content_block_delta","delta":{"type":"input_json_delta","partial_json":"{"}}',
      ),
    ).toEqual({});
    expect(
      anthropicPiece(
        'content_block_start',
        '{"type":"content_block_start","content_block":{"type":"tool_use","id":"t"}}',
      ),
    ).toEqual({ toolCall: true });
    expect(anthropicPiece('message_delta', '{"type":"message_delta","usage":{"output_tokens":7}}')).toEqual({
      outputTokens: 7,
    });
    expect(
      anthropicPiece(
        'message_delta',
        '{"type":"message_delta","delta":{"stop_reason":"max_tokens"},"usage":{"output_tokens":9}}',
      ),
    ).toEqual({ outputTokens: 9, truncated: true });
    expect(
      anthropicPiece('error', '{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}'),
    ).toEqual({ error: 'Overloaded' });
    expect(anthropicPiece('message_stop', '{"type":"message_stop"}')).toEqual({ done: true });
    expect(anthropicPiece('ping', '{"type":"ping"}')).toEqual({});
  });
});
