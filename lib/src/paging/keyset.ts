import { sql, type Expression, type RawBuilder } from "kysely";
import type { SortKeyKind } from "./page-token.js";

/**
 * A timestamp column as the text a page token carries: UTC at microsecond precision, exactly as
 * Postgres keeps it, so the next page compares equal values equal.
 *
 * @example
 *   db.selectFrom("bots").selectAll().select(timestampKey(sql.ref("created_at")).as("created_key"))
 */
export function timestampKey(column: Expression<unknown>): RawBuilder<string> {
  return sql<string>`to_char(${column} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`;
}

/**
 * The keyset condition: rows strictly after (`asc`) or before (`desc`) the given sort keys, as a
 * row comparison the (key1, key2) index serves. Every key sorts the same direction.
 *
 * @example
 *   q.where(keysetAfter([sql.ref("created_at"), sql.ref("id")], keys, ["timestamp", "uuid"], "asc"))
 */
export function keysetAfter(
  columns: readonly Expression<unknown>[],
  values: readonly string[],
  kinds: readonly SortKeyKind[],
  direction: "asc" | "desc",
): RawBuilder<boolean> {
  const typed = values.map((v, i) => cast(v, kinds[i]!));
  const op = direction === "asc" ? sql.raw(">") : sql.raw("<");
  return sql<boolean>`(${sql.join(columns)}) ${op} (${sql.join(typed)})`;
}

function cast(value: string, kind: SortKeyKind): RawBuilder<unknown> {
  switch (kind) {
    case "timestamp":
      return sql`cast(${value} as timestamptz)`;
    case "uuid":
      return sql`cast(${value} as uuid)`;
    case "int":
      return sql`cast(${value} as bigint)`;
    case "text":
      return sql`cast(${value} as text)`;
  }
}
