import type { Response } from 'express';

/**
 * A JSON answer written as `res.json` writes it, less the ETag: for answers that no conditional request can use (a
 * change's answer, an error), which express would otherwise hash whole for one.
 */
export function sendJson(res: Response, status: number, value: unknown): void {
  const text = JSON.stringify(value);
  res.statusCode = status;
  res.setHeader('Content-Type', 'application/json; charset=utf-8');
  res.setHeader('Content-Length', Buffer.byteLength(text));
  res.end(text);
}
