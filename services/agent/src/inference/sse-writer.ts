import type { Response } from 'express';

import { AppError } from '@platform/errors';
import type { Logger } from '@platform/logger';

/**
 * Writes a `text/event-stream` answer: the headers with the first event (so that anything failing before it can
 * still be answered as JSON with its status), `data: {"content": ...}` per delta (or another JSON event through
 * `send`), `data: [DONE]` last, and an `event: error` in place of [DONE] when the run fails after the stream started.
 */
export function createSseWriter(res: Response, logger: Logger) {
  let started = false;
  const write = (chunk: string) => {
    if (!started) {
      res.status(200).set({
        'content-type': 'text/event-stream; charset=utf-8',
        'cache-control': 'no-cache, no-transform',
        'x-accel-buffering': 'no',
      });
      res.flushHeaders();
      started = true;
    }
    if (!res.writableEnded && !res.destroyed) res.write(chunk);
  };
  return {
    started: () => started,
    delta(text: string) {
      write(`data: ${JSON.stringify({ content: text })}\n\n`);
    },
    /** One event of another shape (an OpenAI `chat.completion.chunk`), as JSON. */
    send(payload: unknown) {
      write(`data: ${JSON.stringify(payload)}\n\n`);
    },
    done() {
      write('data: [DONE]\n\n');
      res.end();
    },
    /** A failure after the first byte: an AppError's own detail (a provider's 502), else a generic 500's. */
    fail(err: unknown) {
      const known = err instanceof AppError && typeof err.detail === 'string' ? err : null;
      if (!known || known.status >= 500) {
        logger[known ? 'warn' : 'error']('inference stream failed after it started', { err: (err as Error).message });
      }
      const detail = known ? known.detail : 'Internal Server Error';
      write(`event: error\ndata: ${JSON.stringify({ detail })}\n\n`);
      res.end();
    },
  };
}
