import type { ErrorRequestHandler, RequestHandler } from 'express';
import { AppError, PayloadTooLargeError, ValidationError, toAppError } from '@platform/errors';
import type { Logger } from '@platform/logger';

interface BodyParserError extends Error {
  type?: string;
  status?: number;
}

/** Maps body-parser failures to the contract's shapes. */
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
      return undefined;
  }
}

/** The one error middleware: AppErrors keep their status and detail; anything unknown is a logged 500. */
export function errorHandler(logger: Logger): ErrorRequestHandler {
  return (err, req, res, _next) => {
    const known = toAppError(err) ?? fromBodyParser(err as BodyParserError);
    if (res.headersSent) {
      logger.error('error after response started', { err });
      return;
    }
    if (known) {
      if (known.status >= 500) logger.error('request failed', { status: known.status, err: err as Error });
      res.set(known.headers).status(known.status).json({ detail: known.detail });
      return;
    }
    logger.error('unhandled error', { err: err as Error, method: req.method, path: req.path });
    res.status(500).json({ detail: 'Internal Server Error' });
  };
}

/** 404 for paths no route serves, in the contract's shape. */
export const notFoundHandler: RequestHandler = (_req, res) => {
  res.status(404).json({ detail: 'Not Found' });
};
