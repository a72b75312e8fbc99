// The reference of the promotion bench: the SQL one create sends, sent straight with
// node-postgres (a pool of the platform's size, as many loops as the load generator has
// connections), each create's statements in order on one connection.
import { randomUUID } from "node:crypto";
import pg from "pg";
import type { TracedStatement } from "./trace-sql.js";

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
let replays = 0;

/**
 * Replays `statements` for `seconds`: every value holding `requestId` gets a fresh request id and
 * an outbox row a fresh event id, so each replay writes new rows, as a new create does.
 */
export async function replaySql(opts: {
  url: string;
  statements: TracedStatement[];
  requestId: string;
  connections: number;
  seconds: number;
  poolMax: number;
}) {
  const pool = new pg.Pool({ connectionString: opts.url, max: opts.poolMax });
  const tag = `ref-${process.pid}-${replays++}`;
  let next = 0;
  const ms: number[] = [];
  const end = performance.now() + opts.seconds * 1000;
  const loop = async () => {
    while (performance.now() < end) {
      const id = `${tag}-${next++}`;
      const t0 = performance.now();
      const client = await pool.connect();
      try {
        for (const s of opts.statements) {
          const outbox = /insert into "[^"]+"\."outbox"/.test(s.text);
          const fresh = (v: unknown) =>
            typeof v !== "string"
              ? v
              : outbox && UUID.test(v)
                ? randomUUID()
                : v.replaceAll(opts.requestId, id);
          await client.query(s.text, s.values.map(fresh));
        }
      } finally {
        client.release();
      }
      ms.push(performance.now() - t0);
    }
  };
  await Promise.all(Array.from({ length: opts.connections }, loop));
  await pool.end();
  ms.sort((a, b) => a - b);
  const q = (p: number) => Math.round(ms[Math.floor(p * (ms.length - 1))]! * 10) / 10;
  return {
    requests_per_s: Math.round((ms.length / opts.seconds) * 100) / 100,
    p50_ms: q(0.5),
    p99_ms: q(0.99),
    requests: ms.length,
  };
}
