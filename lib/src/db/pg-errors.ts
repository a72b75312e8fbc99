/** Postgres SQLSTATE of an error from pg or PGlite (both expose `code`). */
function sqlState(err: unknown): string | undefined {
  const e = err as { code?: unknown; cause?: { code?: unknown } } | null;
  const code = e?.code ?? e?.cause?.code;
  return typeof code === "string" ? code : undefined;
}

/** 23505: a unique constraint refused the row (a duplicate slug, request id...). */
export function isUniqueViolation(err: unknown): boolean {
  return sqlState(err) === "23505";
}

/** 23503: a foreign key refused the row (what it points at was deleted meanwhile). */
export function isForeignKeyViolation(err: unknown): boolean {
  return sqlState(err) === "23503";
}

/** 40001: a serializable transaction lost a race and may be retried. */
export function isSerializationFailure(err: unknown): boolean {
  return sqlState(err) === "40001";
}
