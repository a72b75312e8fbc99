import { randomBytes } from "node:crypto";
import { fromBinary } from "@bufbuild/protobuf";
import { timestampDate } from "@bufbuild/protobuf/wkt";
import { sql } from "kysely";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AuditRecordedSchema } from "@svc/gen/svc/events/v1/events_pb.js";
import { migrateSchema, openDatabase, type Database } from "@svc/lib/db";
import { migrations } from "../../migrations/index.js";

const SERVER = process.env.SVC_TEST_DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";
const FOLD = "2026-11-30T0110-fold-audit-into-trail";

describe("the killswitch schema's own audit table folds into the one trail", () => {
  const dbName = `ksfold_${randomBytes(6).toString("hex")}`;
  const admin = new pg.Pool({ connectionString: SERVER, max: 1 });
  let database: Database;
  beforeAll(async () => {
    await admin.query(`create database ${dbName}`);
    const url = new URL(SERVER);
    url.pathname = `/${dbName}`;
    database = await openDatabase({ url: url.toString(), timeoutMs: 5_000 });
  }, 60_000);
  afterAll(async () => {
    await database?.close();
    await admin.query(`drop database if exists ${dbName} with (force)`);
    await admin.end();
  });

  it("sends each old row to the trail through the outbox, in order, and drops the table", async () => {
    const before = Object.fromEntries(Object.entries(migrations).filter(([n]) => n < FOLD));
    await migrateSchema(database.db, "killswitch", before);
    await sql`insert into killswitch.security_audit_events
      (created_at, user_id, actor_user_id, event_type, details) values
      ('2026-11-23T10:00:00.123Z', 'system', 'system', 'killswitch.released',
       '{"name":"alpha-drill","key":"svc:halt:bot:alpha","reason":"ttl elapsed"}'),
      ('2026-11-23T11:00:00Z', 'auth0|alice', 'auth0|alice', 'killswitch.drill',
       '{"id":"d-1","bots":2,"all_restarted":true}')`.execute(database.db);

    await migrateSchema(database.db, "killswitch", migrations);

    const { rows } = await sql<{ payload: Buffer; subject: string }>`
      select payload, subject from killswitch.outbox order by seq`.execute(database.db);
    const events = rows.map((r) => fromBinary(AuditRecordedSchema, new Uint8Array(r.payload)));
    expect(rows.map((r) => r.subject)).toEqual(["svc.audit.recorded", "svc.audit.recorded"]);
    expect(events.map((e) => [e.action, e.resource, e.actor?.subject, e.actor?.actorType])).toEqual(
      [
        ["killswitch.released", "kill_switch/alpha-drill", "system", "system"],
        ["killswitch.drill", "drill/d-1", "auth0|alice", "user"],
      ],
    );
    expect(timestampDate(events[0]!.occurredAt!).toISOString()).toBe("2026-11-23T10:00:00.123Z");
    expect(events[1]!.details).toMatchObject({
      id: "d-1",
      bots: 2,
      folded_from: { table: "killswitch.security_audit_events", user_id: "auth0|alice" },
    });
    const { rows: left } = await sql<{ t: string | null }>`
      select to_regclass('killswitch.security_audit_events')::text as t`.execute(database.db);
    expect(left[0]!.t).toBeNull();
  });
});
