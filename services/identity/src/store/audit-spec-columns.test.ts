import { createHash, randomBytes } from "node:crypto";
import { sql, type Kysely } from "kysely";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { firstBrokenLink, GENESIS_HASH } from "@svc/lib/audit";
import { migrateSchema, openDatabase, schemaDb, type Database } from "@svc/lib/db";
import { canonicalBytes } from "@svc/lib/license";
import { migrations } from "../../migrations/index.js";
import {
  appendAuditEvent,
  chainLinkOf,
  listAuditEvents,
  wholeChain,
} from "./audit-trail.repository.js";
import type { IdentityDatabase } from "./identity.table.js";

const SERVER = process.env.SVC_TEST_DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";
const RENAME = "2026-11-30T0100-audit-spec-columns";

/** The migrations as they were before the trail took the spec's names. */
const before = Object.fromEntries(Object.entries(migrations).filter(([name]) => name < RENAME));

/** A row as the identity service appended it before the rename: old columns, old hash. */
function oldRow(seq: number, prevHash: string, o: { agent?: string; details?: object } = {}) {
  const fields = {
    id: `old-${seq}`,
    occurred_at: new Date(Date.UTC(2026, 10, 28, 9, 0, seq, 5)).toISOString(),
    service: o.agent ? "identity" : "killswitch",
    action: o.agent ? "mcp.tool.list_bots" : "killswitch.engaged",
    outcome: "succeeded",
    resource: o.agent ? "mcp_tool/list_bots" : `kill_switch/k${seq}`,
    actor: {
      subject: o.agent ? "auth0|alice" : "local|ops",
      actor_type: o.agent ? "agent" : "local",
      internal_user_id: o.agent ? "usr-alice" : "",
      agent_subject: o.agent ?? "",
      on_behalf_of: o.agent ? "auth0|alice" : "",
    },
    request_id: `req-${seq}`,
    trace_id: "",
    details: o.details ?? { mode: "hard", reason: "drill", size: 1.5, n: 10 },
    prev_hash: prevHash,
  };
  const hash = createHash("sha256").update(canonicalBytes(fields)).digest("hex");
  return {
    seq: String(seq),
    id: fields.id,
    occurred_at: fields.occurred_at,
    service: fields.service,
    action: fields.action,
    outcome: fields.outcome,
    resource: fields.resource,
    actor_subject: fields.actor.subject,
    actor_type: fields.actor.actor_type,
    internal_user_id: fields.actor.internal_user_id,
    agent_subject: fields.actor.agent_subject,
    on_behalf_of: fields.actor.on_behalf_of,
    request_id: fields.request_id,
    trace_id: fields.trace_id,
    details: new TextDecoder().decode(canonicalBytes(fields.details)),
    prev_hash: prevHash,
    hash,
  };
}

describe("the audit trail takes the spec's column names", () => {
  const dbName = `auditspec_${randomBytes(6).toString("hex")}`;
  const admin = new pg.Pool({ connectionString: SERVER, max: 1 });
  let database: Database;
  let db: Kysely<IdentityDatabase>;
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

  it("keeps rows written under the old names verifiable, with the delegation in details, and chains new rows onto them", async () => {
    await migrateSchema(database.db, "identity", before);
    const rows = [oldRow(1, GENESIS_HASH)];
    rows.push(oldRow(2, rows[0]!.hash, { agent: "agent|research-chat", details: {} }));
    rows.push(oldRow(3, rows[1]!.hash, { agent: "agent|research-chat", details: { tool: "x" } }));
    // An MCP call wrote its own block, hashed with the row: it stays as it was.
    const mcpBlock = {
      agent_subject: "agent|research-chat",
      on_behalf_of_user_id: "usr-alice",
      on_behalf_of_sub: "auth0|alice",
      profile: "svc-agent-delegation",
    };
    rows.push(
      oldRow(4, rows[2]!.hash, { agent: "agent|research-chat", details: { delegation: mcpBlock } }),
    );
    rows.push(oldRow(5, rows[3]!.hash));
    for (const r of rows)
      await sql`insert into identity.security_audit_events
        (seq, id, occurred_at, service, action, outcome, resource, actor_subject, actor_type,
         internal_user_id, agent_subject, on_behalf_of, request_id, trace_id, details, prev_hash, hash)
        values (${r.seq}, ${r.id}, ${r.occurred_at}, ${r.service}, ${r.action}, ${r.outcome},
         ${r.resource}, ${r.actor_subject}, ${r.actor_type}, ${r.internal_user_id},
         ${r.agent_subject}, ${r.on_behalf_of}, ${r.request_id}, ${r.trace_id}, ${r.details},
         ${r.prev_hash}, ${r.hash})`.execute(database.db);

    await migrateSchema(database.db, "identity", migrations);
    db = schemaDb<IdentityDatabase>(database.db, "identity");

    const migrated = await wholeChain(db);
    expect(migrated.map((r) => [r.event_type, r.actor_user_id, r.user_id, r.hash_format])).toEqual([
      ["killswitch.engaged", "local|ops", "", 1],
      ["mcp.tool.list_bots", "auth0|alice", "usr-alice", 1],
      ["mcp.tool.list_bots", "auth0|alice", "usr-alice", 1],
      ["mcp.tool.list_bots", "auth0|alice", "usr-alice", 1],
      ["killswitch.engaged", "local|ops", "", 1],
    ]);
    expect(JSON.parse(migrated[3]!.details)).toEqual({ delegation: mcpBlock });
    expect(migrated[0]!.created_at.toISOString()).toBe(rows[0]!.occurred_at);
    expect(JSON.parse(migrated[2]!.details)).toEqual({
      tool: "x",
      delegation: {
        agent_subject: "agent|research-chat",
        on_behalf_of_user_id: "usr-alice",
        on_behalf_of_sub: "auth0|alice",
        profile: "svc-agent-delegation",
        added_by: "2026-11-30T0100-audit-spec-columns",
      },
    });
    expect(migrated.map((r) => r.hash)).toEqual(rows.map((r) => r.hash));
    expect(firstBrokenLink(migrated.map(chainLinkOf))).toBeUndefined();

    // A new delegated act chains onto the old head under the new format.
    await db.transaction().execute((trx) =>
      appendAuditEvent(trx, {
        id: "new-1",
        occurred_at: new Date().toISOString(),
        service: "identity",
        action: "mcp.tool.get_bot",
        outcome: "succeeded",
        resource: "mcp_tool/get_bot",
        actor: {
          subject: "auth0|bob",
          actor_type: "agent",
          internal_user_id: "usr-bob",
          agent_subject: "agent|research-chat",
          on_behalf_of: "auth0|bob",
        },
        request_id: "",
        trace_id: "",
        details: { bot: "alpha" },
      }),
    );
    const chain = (await wholeChain(db)).map(chainLinkOf);
    expect(chain.at(-1)).toMatchObject({
      seq: 6,
      prev_hash: rows[4]!.hash,
      hash_format: 2,
      event_type: "mcp.tool.get_bot",
      user_id: "usr-bob",
      details: { bot: "alpha", delegation: { agent_subject: "agent|research-chat" } },
    });
    expect(firstBrokenLink(chain)).toBeUndefined();

    // The actor filter still finds an agent's acts and the person's, old rows and new.
    const byAgent = await listAuditEvents(db, { actor: "agent|research-chat" }, 0, 100);
    expect(byAgent.map((r) => r.id)).toEqual(["old-2", "old-3", "old-4", "new-1"]);
    const byPerson = await listAuditEvents(db, { actor: "usr-bob" }, 0, 100);
    expect(byPerson.map((r) => r.id)).toEqual(["new-1"]);

    // An edit the migration could have hidden is still seen: the profile, or an old row's details.
    const profileEdited = chain.map((l, i) =>
      i === 1
        ? { ...l, details: { delegation: { ...(l.details.delegation as object), profile: "x" } } }
        : l,
    );
    expect(firstBrokenLink(profileEdited)).toMatchObject({ seq: 2, problem: "altered" });
    // ... the person an agent acted for, credited to someone else ...
    const personEdited = chain.map((l, i) =>
      i === 1
        ? {
            ...l,
            details: {
              delegation: {
                ...(l.details.delegation as object),
                on_behalf_of_user_id: "usr-mallory",
              },
            },
          }
        : l,
    );
    expect(firstBrokenLink(personEdited)).toMatchObject({ seq: 2, problem: "altered" });
    // ... or a block claiming the migration added it to a row no agent made.
    const blockForged = chain.map((l, i) =>
      i === 0
        ? {
            ...l,
            details: {
              ...l.details,
              delegation: {
                agent_subject: "",
                on_behalf_of_user_id: l.user_id,
                on_behalf_of_sub: "",
                profile: "svc-agent-delegation",
                added_by: "2026-11-30T0100-audit-spec-columns",
              },
            },
          }
        : l,
    );
    expect(firstBrokenLink(blockForged)).toMatchObject({ seq: 1, problem: "altered" });
    const detailsEdited = chain.map((l, i) => (i === 0 ? { ...l, details: { mode: "soft" } } : l));
    expect(firstBrokenLink(detailsEdited)).toMatchObject({ seq: 1, problem: "altered" });
  });
});
