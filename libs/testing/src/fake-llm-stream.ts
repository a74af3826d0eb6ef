import type { ServerResponse } from 'node:http';

/** A scripted streamed answer: the deltas sent as server-sent events in the provider's protocol. */
export interface ScriptedStream {
  stream: string[];
  /** After this many deltas, wait until the test calls `release()`. */
  holdAfter?: number;
  /** After this many deltas, send the protocol's error event and end instead of finishing. */
  failAfter?: number;
  /** End as a reply cut at the token limit (`finish_reason: "length"`, `stop_reason: "max_tokens"`). */
  truncated?: boolean;
}

/** What the stand-in saw of its streams, for tests to assert on. */
export interface StreamState {
  /** Deltas written so far, over every stream. */
  sent: number;
  /** Streams whose connection the client closed before the stand-in finished them. */
  aborted: number;
  /** Held streams waiting for release. */
  waiting: (() => void)[];
}

const sse = (data: unknown, event?: string) =>
  `${event ? `event: ${event}\n` : ''}data: ${typeof data === 'string' ? data : JSON.stringify(data)}\n\n`;

function frames(protocol: 'openai' | 'anthropic', truncated = false) {
  if (protocol === 'openai') {
    const chunk = (delta: object, finish: string | null = null) => ({
      id: 'chatcmpl-s',
      object: 'chat.completion.chunk',
      choices: [{ index: 0, delta, finish_reason: finish }],
    });
    return {
      start: sse(chunk({ role: 'assistant', content: '' })),
      delta: (text: string) => sse(chunk({ content: text })),
      end:
        sse(chunk({}, truncated ? 'length' : 'stop')) +
        sse({
          id: 'chatcmpl-s',
          object: 'chat.completion.chunk',
          choices: [],
          usage: { prompt_tokens: 9, completion_tokens: 4, total_tokens: 13 },
        }) +
        sse('[DONE]'),
      error: sse({ error: { message: 'The server is overloaded', type: 'server_error' } }),
    };
  }
  const message = {
    id: 'msg_s',
    type: 'message',
    role: 'assistant',
    content: [],
    usage: { input_tokens: 12, output_tokens: 1 },
  };
  return {
    start:
      sse({ type: 'message_start', message }, 'message_start') +
      sse({ type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } }, 'content_block_start') +
      sse({ type: 'ping' }, 'ping'),
    delta: (text: string) =>
      sse({ type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text } }, 'content_block_delta'),
    end:
      sse({ type: 'content_block_stop', index: 0 }, 'content_block_stop') +
      sse(
        {
          type: 'message_delta',
          delta: { stop_reason: truncated ? 'max_tokens' : 'end_turn' },
          usage: { output_tokens: 6 },
        },
        'message_delta',
      ) +
      sse({ type: 'message_stop' }, 'message_stop'),
    error: sse({ type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } }, 'error'),
  };
}

/** Writes a scripted stream, holding or failing where the script says; counts deltas sent and clients that left. */
export async function writeStream(
  protocol: 'openai' | 'anthropic',
  res: ServerResponse,
  script: ScriptedStream,
  state: StreamState,
): Promise<void> {
  const f = frames(protocol, script.truncated);
  let finished = false;
  res.on('close', () => {
    if (!finished) state.aborted += 1;
  });
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  res.write(f.start);
  for (const [i, text] of script.stream.entries()) {
    if (i === script.failAfter) {
      finished = true;
      res.end(f.error);
      return;
    }
    if (i === script.holdAfter) await new Promise<void>((resolve) => state.waiting.push(resolve));
    if (res.destroyed) return;
    res.write(f.delta(text));
    state.sent += 1;
  }
  finished = true;
  res.end(f.end);
}
