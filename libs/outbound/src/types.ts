/** The shapes of an outbound call, shared by the buffered and the streamed client. */

export interface OutboundRequest {
  url: string;
  method?: string;
  headers?: Record<string, string>;
  /** A string or Buffer is sent as is; anything else as JSON. */
  body?: unknown;
  timeoutMs?: number;
  maxResponseBytes?: number;
  maxRedirects?: number;
}

/** A response whose body is read as it arrives (server-sent events, long downloads). */
export interface OutboundStreamResponse {
  status: number;
  /** Lower-case names; repeated headers joined with ", ". */
  headers: Record<string, string>;
  /** The body's chunks as they arrive; fails with an OutboundError on timeout, the size cap or an abort. */
  body: AsyncIterable<Buffer>;
  /** The URL that answered, after redirects. */
  url: string;
  /** Stops reading and closes the connection. */
  cancel(): void;
}

export interface OutboundStreamRequest extends OutboundRequest {
  /** Aborts the call (and closes its connection) when it fires, e.g. when the caller's own client went away. */
  signal?: AbortSignal;
}
