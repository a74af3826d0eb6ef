import { NotFoundError, ValidationError, type FieldError } from '@platform/errors';

/** Entries of another service's 422 passed on as ours (at most 10); `fallback` when its body has none. */
export function fieldErrorsOf(body: unknown, fallback: FieldError): FieldError[] {
  const detail = (body as { detail?: unknown } | null)?.detail;
  if (!Array.isArray(detail) || detail.length === 0) return [fallback];
  return detail.slice(0, 10).map((e: Partial<FieldError>) => ({
    loc: Array.isArray(e.loc) ? e.loc : fallback.loc,
    msg: typeof e.msg === 'string' ? e.msg : fallback.msg,
    type: typeof e.type === 'string' ? e.type : fallback.type,
  }));
}

/** A called service's 404 of the RAG configuration, or its 422, as our own answer. */
export function passOnRefusal(body: unknown, status = 422): never {
  if (status === 404) throw new NotFoundError('RAG configuration');
  throw new ValidationError(
    fieldErrorsOf(body, { loc: ['body'], msg: 'The request was refused by the knowledge graph', type: 'value_error' }),
  );
}
