/** What the shared HTTP layer answers on any route before the route runs, so documents need not repeat it per operation. */
const error = { type: 'object', required: ['detail'], properties: { detail: { type: 'string' } } };

/** A body it cannot read (a bad Content-Encoding), bad URL bytes, a body too large, not JSON, the rate limit. */
export const SHARED_RESPONSES = { 400: error, 404: error, 413: error, 415: error, 429: error };
