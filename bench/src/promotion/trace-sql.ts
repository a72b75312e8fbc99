// What one piece of work sends to Postgres, recorded at the pg client: the statements and their
// values in order. The outbox relays poll beside it, so their transactions (the ones that claim
// rows with SKIP LOCKED) are left out, and so are transactions the work did not see begin or
// end; a sweeper's lone statement can still slip in, so a caller traces the work a few times
// and keeps the shortest trace (background work only ever adds statements).
import pg from "pg";

export interface TracedStatement {
  text: string;
  values: unknown[];
}

type Query = (...args: unknown[]) => unknown;

/** Runs `work` with every pg client's query recorded, and returns the statements it sent. */
export async function traceSql(work: () => Promise<void>): Promise<TracedStatement[]> {
  const proto = pg.Client.prototype as unknown as { query: Query };
  const original = proto.query;
  const seen: Array<{ client: object; statement: TracedStatement }> = [];
  proto.query = function (this: object, ...args: unknown[]) {
    const [q, values] = args as [string | { text: string; values?: unknown[] }, unknown[]?];
    const text = typeof q === "string" ? q : q.text;
    seen.push({ client: this, statement: { text, values: [...(values ?? [])] } });
    return original.apply(this, args);
  } as Query;
  try {
    await work();
  } finally {
    proto.query = original;
  }
  return withoutRelayPolls(seen);
}

function withoutRelayPolls(seen: Array<{ client: object; statement: TracedStatement }>) {
  const dropped = new Set<number>();
  // Per client, the statements since its last BEGIN, COMMIT or ROLLBACK, and whether a BEGIN led.
  const open = new Map<object, { begun: boolean; at: number[] }>();
  seen.forEach(({ client, statement }, i) => {
    const verb = statement.text.trim().toLowerCase();
    if (verb === "begin") open.set(client, { begun: true, at: [i] });
    else {
      const group = open.get(client) ?? { begun: false, at: [] };
      group.at.push(i);
      open.set(client, group);
    }
    if (verb === "commit" || verb === "rollback") {
      const group = open.get(client)!;
      open.delete(client);
      // A relay's poll, or a transaction that began before the trace (no client in a
      // transaction serves anyone else, so what it sent since the trace began is that
      // transaction's): not the work's.
      if (!group.begun || group.at.some((j) => /skip locked/i.test(seen[j]!.statement.text)))
        for (const j of group.at) dropped.add(j);
    }
  });
  // A transaction still open when the work is done is not the work's: the work awaited its own.
  for (const group of open.values()) if (group.begun) for (const j of group.at) dropped.add(j);
  return seen.filter((_, i) => !dropped.has(i)).map((s) => s.statement);
}

/** JSON for statements whose values may hold dates and bytes; `revive` reads it back. */
export function statementsToJson(statements: TracedStatement[]): string {
  return JSON.stringify(statements, (_, v: unknown) =>
    v && typeof v === "object" && (v as { type?: string }).type === "Buffer"
      ? { $base64: Buffer.from((v as { data: number[] }).data).toString("base64") }
      : v,
  );
}

export function revive(json: string): TracedStatement[] {
  return JSON.parse(json, (_, v: unknown) =>
    v && typeof v === "object" && "$base64" in v
      ? Buffer.from((v as { $base64: string }).$base64, "base64")
      : v,
  ) as TracedStatement[];
}
