import type { Readable } from 'node:stream';

import { OutboundError, OutboundNetworkError, OutboundTimeoutError } from './errors';
import { capped } from './transport';
import type { OutboundStreamResponse } from './types';

interface StreamLimits {
  /** The call's signal: its time limit and the caller's abort together. */
  signal: AbortSignal;
  /** The time limit alone, to tell a timeout from an abort. */
  timeout: AbortSignal;
  timeoutMs: number;
  cap: number;
}

/** What a failure while reading the body becomes: a timeout, an abort by the caller or a broken connection. */
function readError(err: unknown, limits: StreamLimits): OutboundError {
  if (err instanceof OutboundError) return err;
  if (limits.timeout.aborted) return new OutboundTimeoutError(limits.timeoutMs);
  if (limits.signal.aborted) return new OutboundNetworkError('aborted by the caller', 'ABORTED');
  const e = err as { code?: string; message?: string };
  return new OutboundNetworkError(e.message ?? 'connection failed while reading', e.code ?? 'NETWORK');
}

/** Wraps a streamed body: the size cap, the time limit and the caller's abort apply to every chunk read. */
export function streamResponse(
  status: number,
  headers: Record<string, string>,
  url: string,
  source: Readable,
  limits: StreamLimits,
): OutboundStreamResponse {
  const stop = () => source.destroy();
  limits.signal.addEventListener('abort', stop, { once: true });
  async function* body(): AsyncGenerator<Buffer> {
    try {
      yield* capped(source, limits.cap);
      if (limits.signal.aborted) throw readError(undefined, limits);
    } catch (err) {
      throw readError(err, limits);
    } finally {
      limits.signal.removeEventListener('abort', stop);
      source.destroy();
    }
  }
  return { status, headers, url, body: body(), cancel: stop };
}
