import { sql, type Kysely } from "kysely";
import { connect } from "nats";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunningPlatform } from "@svc/all-in-one";
import { verifyAuditTrail } from "@svc/cli/audit-verify";
import { auditHash, checkpointStreamOf, type ChainLink } from "@svc/lib/audit";
import { deleteTestStream } from "@svc/lib/bus/testing-streams";
import { as } from "../support/paper.js";
import {
  BACKENDS,
  call,
  PLATFORM_START_TIMEOUT_MS,
  startTestPlatform,
  testNatsNamespace,
  testNatsUrl,
} from "../support/test-platform.js";
import { eventually } from "../support/until.js";

type Row = Record<string, unknown> & { seq: string; hash: string; prev_hash: string };

/**
 * An attacker with the database's superuser (or the identity role's password) goes at the audit
 * trail: the table refuses UPDATE, DELETE and TRUNCATE until the session sets the documented
 * maintenance setting, and with it set, every rewrite that used to pass (the tail cut off, a row
 * edited and every later hash recomputed, a forged row appended) is named by both the verify
 * route and `svc audit verify`, with the first bad seq, from the signed checkpoints kept outside
 * the database. On Postgres with NATS they live on their own JetStream stream, where a forged
 * checkpoint is named too. After each attack the trail is restored from a copy, as the runbook
 * says, and verifies again.
 */
describe.each(BACKENDS)("the audit trail under attack, on %s", (backend) => {
  const namespace = testNatsNamespace();
  const withNats = backend === "postgres";
  let p: RunningPlatform;
  let db: Kysely<unknown>;
  let original: Row[];

  const rows = async () =>
    (await sql<Row>`select * from identity.security_audit_events order by seq`.execute(db)).rows;
  /** What an attacker with the maintenance setting on does, in one transaction. */
  const asAttacker = (work: (trx: Kysely<unknown>) => Promise<unknown>) =>
    db.transaction().execute(async (trx) => {
      await sql`select set_config('svc.audit_maintenance', 'on', true)`.execute(trx);
      await work(trx);
    });
  const verifyRoute = async () => {
    const r = await call(p.url, "GET", "/admin/audit-trail/verify");
    expect(r.status, r.text).toBe(200);
    return r.body as {
      intact?: boolean;
      first_bad_seq?: string;
      problem?: string;
      why?: string;
      checkpoint_store: string;
    };
  };
  const expectBroken = async (seq: number, problem: string) => {
    const route = await verifyRoute();
    expect([route.intact ?? false, Number(route.first_bad_seq), route.problem]).toEqual([
      false,
      seq,
      problem,
    ]);
    const cli = await verifyAuditTrail(p.url, {});
    expect([cli.broken?.seq, cli.broken?.problem]).toEqual([seq, problem]);
  };
  const expectIntact = async () => {
    const route = await verifyRoute();
    expect(route.intact, route.why).toBe(true);
    expect(route.checkpoint_store).toBe(withNats ? "jetstream" : "in-process");
    const cli = await verifyAuditTrail(p.url, {});
    expect(cli.broken).toBeUndefined();
  };
  /** The runbook's restore: the rows as they were, put back under the maintenance setting. */
  const restore = () =>
    asAttacker(async (trx) => {
      await sql`delete from identity.security_audit_events`.execute(trx);
      for (const r of original)
        await sql`insert into identity.security_audit_events
          select * from json_populate_record(null::identity.security_audit_events, ${JSON.stringify(r)}::json)`.execute(
          trx,
        );
    });
  /** The chain fields of a stored row, as its hash covers them. */
  const linkOf = (r: Row): ChainLink => ({
    seq: Number(r.seq),
    id: String(r.id),
    created_at: new Date(r.created_at as string).toISOString(),
    service: String(r.service),
    event_type: String(r.event_type),
    outcome: String(r.outcome),
    resource: String(r.resource),
    actor_user_id: String(r.actor_user_id),
    actor_type: String(r.actor_type),
    user_id: String(r.user_id),
    request_id: String(r.request_id),
    trace_id: String(r.trace_id),
    details: JSON.parse(String(r.details)),
    prev_hash: r.prev_hash,
    hash: r.hash,
    hash_format: r.hash_format === 1 ? 1 : 2,
  });
  const hashOf = (link: ChainLink) => {
    const { seq: _seq, hash: _hash, ...fields } = link;
    return auditHash(fields);
  };

  beforeAll(async () => {
    p = await startTestPlatform(backend, {
      SVC_AUDIT_CHECKPOINT_INTERVAL_MS: "200",
      ...(withNats ? { SVC_NATS_URL: testNatsUrl(), SVC_NATS_NAMESPACE: namespace } : {}),
    });
    db = p.platform.db.db;
    for (const name of ["tamper-a", "tamper-b", "tamper-c"]) {
      const engaged = await call(
        p.url,
        "PUT",
        `/kill-switches/${name}`,
        { scope: "fleet", target: name, mode: "freeze", reason: "drill" },
        as("default"),
      );
      expect(engaged.status, engaged.text).toBe(200);
      const released = await call(p.url, "DELETE", `/kill-switches/${name}`);
      expect(released.status, released.text).toBe(200);
    }
    original = await eventually("the six acts reach the chain", rows, (r) => r.length >= 6);
  }, PLATFORM_START_TIMEOUT_MS);
  afterAll(async () => {
    await p?.close();
    if (withNats) {
      // The namespace's checkpoint stream goes with its events stream.
      await deleteTestStream(testNatsUrl(), `${namespace.toUpperCase()}_EVENTS`);
    }
  });

  it("holds as the service wrote it", async () => {
    await expectIntact();
  });

  it("re-signs the newest row at the configured interval while nothing is appended", async () => {
    const newest = async () =>
      (await call(p.url, "GET", "/admin/audit-checkpoints?limit=1")).body.items[0] as {
        seq: string;
        time: string;
      };
    const first = await newest();
    const later = await eventually("a heartbeat checkpoint", newest, (c) => c.time > first.time);
    expect(Number(later.seq)).toBe(original.length);
  });

  it("refuses UPDATE, DELETE and TRUNCATE without the maintenance setting, even to a superuser", async () => {
    const refused = async (statement: ReturnType<typeof sql>) => {
      const err = await statement.execute(db).then(
        () => undefined,
        (e: unknown) => e as Error & { code?: string },
      );
      expect(err?.message).toMatch(/security_audit_events is append-only/);
    };
    await refused(sql`update identity.security_audit_events set outcome = 'denied' where seq = 2`);
    await refused(sql`delete from identity.security_audit_events where seq = 2`);
    await refused(sql`truncate identity.security_audit_events`);
    expect(await rows()).toEqual(original);
    await expectIntact();
  });

  it("names the first seq of a tail cut off", async () => {
    const head = original.length;
    await asAttacker((trx) =>
      sql`delete from identity.security_audit_events where seq > ${head - 2}`.execute(trx),
    );
    await expectBroken(head - 1, "truncated");
    await restore();
    await expectIntact();
  });

  it("names the row edited when every later hash was recomputed", async () => {
    const chain = original.map(linkOf);
    const edited = 3;
    chain[edited - 1]!.details = { ...chain[edited - 1]!.details, reason: "nothing happened" };
    for (let i = edited - 1; i < chain.length; i++) {
      if (i > 0) chain[i]!.prev_hash = chain[i - 1]!.hash;
      chain[i]!.hash = hashOf(chain[i]!);
    }
    await asAttacker(async (trx) => {
      for (const link of chain.slice(edited - 1))
        await sql`update identity.security_audit_events
          set details = ${JSON.stringify(link.details)}, prev_hash = ${link.prev_hash}, hash = ${link.hash}
          where seq = ${link.seq}`.execute(trx);
    });
    // The chain itself holds: only the checkpoints can tell.
    expect((await verifyAuditTrail(p.url, {})).broken?.problem).toBe("rewritten");
    await expectBroken(edited, "rewritten");
    await restore();
    await expectIntact();
  });

  it("names a forged row appended behind the service's back", async () => {
    const last = linkOf(original.at(-1)!);
    const forged: ChainLink = {
      ...last,
      seq: last.seq + 1,
      id: "forged-1",
      event_type: "killswitch.released",
      resource: "kill_switch/everything",
      user_id: "",
      details: {},
      request_id: "",
      trace_id: "",
      prev_hash: last.hash,
    };
    forged.hash = hashOf(forged);
    await sql`insert into identity.security_audit_events
      (seq, id, created_at, service, event_type, outcome, resource, actor_user_id, actor_type,
       user_id, request_id, trace_id, details, prev_hash, hash, hash_format)
      values (${String(forged.seq)}, ${forged.id}, ${forged.created_at}, ${forged.service},
       ${forged.event_type}, ${forged.outcome}, ${forged.resource}, ${forged.actor_user_id},
       ${forged.actor_type}, '', '', '', ${JSON.stringify(forged.details)},
       ${forged.prev_hash}, ${forged.hash}, 2)`.execute(db);
    await expectBroken(forged.seq, "unanchored");
    // A genuine act appended on top of it does not launder it: the service never vouches for a
    // row that chains onto one it did not append.
    const engaged = await call(
      p.url,
      "PUT",
      "/kill-switches/tamper-d",
      { scope: "fleet", target: "tamper-d", mode: "freeze", reason: "after the forgery" },
      as("default"),
    );
    expect(engaged.status, engaged.text).toBe(200);
    await eventually("the genuine act lands on the forged row", rows, (r) => r.length > forged.seq);
    await expectBroken(forged.seq, "unanchored");
    // A checkpoint asked for on demand does not vouch for it either.
    const asked = await call(p.url, "POST", "/admin/audit-checkpoints", {});
    expect([asked.status, Number(asked.body.checkpoint.seq)]).toEqual([200, last.seq]);
    await expectBroken(forged.seq, "unanchored");
    await restore();
    await expectIntact();
  });

  it.runIf(withNats)("names a checkpoint forged on the checkpoint stream", async () => {
    const listed = await call(p.url, "GET", "/admin/audit-checkpoints?limit=1");
    const newest = listed.body.items[0];
    const { subject } = checkpointStreamOf(namespace);
    const nc = await connect({ servers: testNatsUrl() });
    try {
      const js = nc.jetstream();
      await js.publish(
        subject,
        JSON.stringify({
          payload: {
            format: newest.format,
            seq: Number(newest.seq),
            head_hash: "f".repeat(64),
            time: new Date().toISOString(),
            key_id: newest.key_id,
          },
          signature: newest.signature,
        }),
      );
    } finally {
      await nc.close();
    }
    await expectBroken(Number(newest.seq), "bad_checkpoint_signature");
  });
});
