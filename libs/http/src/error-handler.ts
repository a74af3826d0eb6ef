import { STATUS_CODES } from 'node:http';
import type { ErrorRequestHandler, Request, RequestHandler } from 'express';

import { AppError, PayloadTooLargeError, toAppError, ValidationError } from '@platform/errors';
import type { Logger } from '@platform/logger';

import { sendJson } from './send-json';

interface BodyParserError extends Error {
  type?: string;
  status?: number;
  expose?: boolean;
}

/** Maps body-parser failures to the API's shapes. */
function fromBodyParser(err: BodyParserError): AppError | undefined {
  switch (err.type) {
    case 'entity.parse.failed':
      return ValidationError.field(['body'], 'JSON decode error', 'json_invalid');
    case 'entity.too.large':
      return new PayloadTooLargeError();
    case 'encoding.unsupported':
    case 'charset.unsupported':
      return new AppError(415, 'Unsupported content encoding');
    case 'request.aborted':
    case 'request.size.invalid':
      return new AppError(400, 'Request body incomplete');
    default:
      // Any other client error of the body reader (e.g. a gzip body that does not inflate) is the client's, not
      // ours: keep its 4xx with a generic detail, since its message may quote internals.
      if (err.expose === true && typeof err.status === 'number' && err.status >= 400 && err.status < 500) {
        return new AppError(
          err.status,
          err.status === 400 ? 'Request body could not be read' : (STATUS_CODES[err.status] ?? 'Bad request'),
        );
      }
      return undefined;
  }
}

/** Fields an error answer of `req` carries beside `detail` (none: undefined); never replaces `detail`. */
export type ErrorExtras = (
  req: Request,
  error: { status: number; detail: unknown },
) => Record<string, unknown> | undefined;

/**
 * The one error middleware: AppErrors keep their status and detail; anything unknown is a logged 500. `extras` adds
 * fields beside `detail` on the requests it picks.
 */
export function errorHandler(logger: Logger, extras?: ErrorExtras): ErrorRequestHandler {
  return (err, req, res, _next) => {
    const known = toAppError(err) ?? fromBodyParser(err as BodyParserError);
    if (res.headersSent) {
      logger.error('error after response started', { err: err as unknown });
      return;
    }
    const answer = (status: number, detail: unknown) =>
      sendJson(res, status, { ...extras?.(req, { status, detail }), detail });
    if (known) {
      if (known.status >= 500) logger.error('request failed', { status: known.status, err: err as Error });
      res.set(known.headers);
      answer(known.status, known.detail);
      return;
    }
    logger.error('unhandled error', { err: err as Error, method: req.method, path: req.path });
    answer(500, 'Internal Server Error');
  };
}

/** 404 for paths no route serves, in the API's shape. */
export const notFoundHandler: RequestHandler = (_req, res) => {
  sendJson(res, 404, { detail: 'Not Found' });
};
