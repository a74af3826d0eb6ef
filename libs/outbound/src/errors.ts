/** Base class of every failure of an outbound call; callers map these to their own responses. */
export class OutboundError extends Error {
  constructor(
    message: string,
    /** A short stable code: BLOCKED, TIMEOUT, TOO_LARGE, TOO_MANY_REDIRECTS, BAD_URL or the socket error code. */
    readonly code: string,
  ) {
    super(message);
    this.name = new.target.name;
  }
}

/** The target (or a redirect, or the address a hostname resolved to) is not allowed; nothing was sent to it. */
export class OutboundBlockedError extends OutboundError {
  constructor(
    readonly host: string,
    readonly reason: string,
    readonly address?: string,
  ) {
    super(`refused to connect to ${host}${address && address !== host ? ` (${address})` : ''}: ${reason}`, 'BLOCKED');
  }
}

/** The call did not complete within its time limit. */
export class OutboundTimeoutError extends OutboundError {
  constructor(readonly timeoutMs: number) {
    super(`no complete response within ${timeoutMs} ms`, 'TIMEOUT');
  }
}

/** The response body was larger than the call's cap; reading stopped there. */
export class OutboundTooLargeError extends OutboundError {
  constructor(readonly limitBytes: number) {
    super(`response larger than ${limitBytes} bytes`, 'TOO_LARGE');
  }
}

/** The connection failed (refused, reset, DNS failure, TLS error) or redirects went on too long. */
export class OutboundNetworkError extends OutboundError {}
