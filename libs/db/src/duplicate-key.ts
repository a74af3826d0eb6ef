/**
 * True for MongoDB's (and FerretDB's) duplicate-key error, e.g. a unique index refusing an insert: code 11000, or
 * an error that carries it only in its message (`E11000 duplicate key error`, as some wrapped driver errors do).
 * FerretDB 1.24 reports a unique index refusing an update (`findAndModify`, `update`) as PostgreSQL's
 * unique_violation (SQLSTATE 23505) inside an InternalError instead, so that counts too.
 */
export function isDuplicateKeyError(err: unknown): boolean {
  if ((err as { code?: unknown } | null)?.code === 11000) return true;
  return (
    err instanceof Error && /E11000|duplicate key value violates unique constraint|SQLSTATE 23505/.test(err.message)
  );
}
