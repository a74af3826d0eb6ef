/** One server-sent event: its `event` name (`message` when unnamed) and its data lines joined by "\n". */
export interface SseEvent {
  event: string;
  data: string;
}

/** Turns a byte stream of `text/event-stream` into events as they complete (a blank line ends each). */
export async function* sseEvents(body: AsyncIterable<Buffer>): AsyncGenerator<SseEvent> {
  const decoder = new TextDecoder();
  let buffer = '';
  let event = 'message';
  let data: string[] = [];
  const take = (line: string): SseEvent | null => {
    if (line === '') {
      const done = data.length > 0 ? { event, data: data.join('\n') } : null;
      event = 'message';
      data = [];
      return done;
    }
    if (line.startsWith(':')) return null;
    const colon = line.indexOf(':');
    const field = colon === -1 ? line : line.slice(0, colon);
    const value = colon === -1 ? '' : line.slice(colon + 1).replace(/^ /, '');
    if (field === 'event') event = value;
    else if (field === 'data') data.push(value);
    return null;
  };
  for await (const chunk of body) {
    buffer += decoder.decode(chunk, { stream: true });
    const lines = buffer.split(/\r\n|\r|\n/);
    buffer = lines.pop() ?? '';
    for (const line of lines) {
      const done = take(line);
      if (done) yield done;
    }
  }
  const last = take(buffer + decoder.decode()) ?? take('');
  if (last) yield last;
}
