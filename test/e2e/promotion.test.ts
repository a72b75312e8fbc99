import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sql } from "kysely";
import type { RunningPlatform } from "@svc/all-in-one";
import {
  BACKENDS,
  call,
  startTestPlatform,
  PLATFORM_START_TIMEOUT_MS,
} from "../support/test-platform.js";
import { eventually } from "../support/until.js";

const as = (user: string) => ({ "x-svc-local-user": user });
const PLATFORM_KEY = "svc:bots:killswitch:platform:platform";

describe.each(BACKENDS)(
  "promotion gates and human decisions through the gateway on %s",
  (backend) => {
    let p: RunningPlatform;
    let hash: string;
    let n = 0;
    const body = (over: Record<string, unknown> = {}) => ({
      request_id: `req-${++n}`,
      kind: "strategy",
      artifact: {
        bot_ref: "alpha",
        version: 1,
        version_hash: hash,
        strategy_family: "ma_crossover",
      },
      validation: { verdict: "PASS", validator: "model-validation" },
      risk: { decision: "APPROVE", engine_version: "1.0" },
      requested_by: "alice",
      ...over,
    });
    const submit = (over: Record<string, unknown> = {}, user = "alice") =>
      call(p.url, "POST", "/promotion/requests", body(over), as(user));
    const decide = (id: string, action: string, user: string, payload: unknown = {}) =>
      call(p.url, "POST", `/promotion/requests/${id}/${action}`, payload, as(user));
    const get = (id: string) => call(p.url, "GET", `/promotion/requests/${id}`);

    beforeAll(async () => {
      p = await startTestPlatform(backend);
      const bot = await call(
        p.url,
        "POST",
        "/bots",
        { name: "Alpha", kind: "trading", fleet: "majors" },
        as("alice"),
      );
      hash = bot.body.spec_hash;
      await eventually(
        "the promotion service learns of the bot",
        () =>
          sql<{ n: number }>`select count(*)::int as n from promotion.known_bot_versions`.execute(
            p.platform.db.db,
          ),
        (r) => r.rows[0]!.n > 0,
      );
    });
    afterAll(async () => {
      await p?.close();
    });

    it("runs the gates at once: pending with every gate passed, recorded in order", async () => {
      const res = await submit();
      expect(res.status).toBe(201);
      expect(res.body.status).toBe("pending");
      expect(
        res.body.gates.map((g: { name: string; passed: boolean }) => [g.name, g.passed]),
      ).toEqual([
        ["validation_not_fail", true],
        ["risk_approved", true],
        ["artifact_known", true],
        ["kill_switch_clear", true],
      ]);
      expect(res.body.expires_at).toBeNull();
      expect(
        (await call(p.url, "GET", "/promotion/approvals")).body.items.map(
          (r: { request_id: string }) => r.request_id,
        ),
      ).toContain(res.body.request_id);
    });

    it("four eyes: the submitter cannot approve; another person can, with step-up recorded, and the live plane finalizes to promoted", async () => {
      const id = (await submit()).body.request_id;
      const self = await decide(id, "approve", "alice");
      expect(self.status).toBe(403);
      expect(self.body.error.code).toBe("four_eyes_violation");
      const ok = await decide(id, "approve", "bob", { note: "reviewed the evidence" });
      expect(ok.status).toBe(200);
      expect(ok.body.status).toBe("approved");
      expect(ok.body.decisions).toHaveLength(1);
      expect(ok.body.decisions[0]).toMatchObject({
        actor: "local|bob",
        action: "approve",
        note: "reviewed the evidence",
        amr: ["mfa"],
      });
      const promoted = await eventually(
        "the live plane activates the artifact (request promoted)",
        () => get(id),
        (r) => r.body.status === "promoted",
      );
      expect(promoted.body.status).toBe("promoted");
      const live = await sql<{
        live_eligible: boolean;
      }>`select live_eligible from bots.live_artifacts where request_id = ${id}`.execute(
        p.platform.db.db,
      );
      expect(live.rows).toEqual([{ live_eligible: true }]);

      const revoked = await decide(id, "revoke", "bob", { reason: "drawdown breach" });
      expect(revoked.body.status).toBe("revoked");
      const again = await decide(id, "revoke", "bob");
      expect(again.status).toBe(409);
      expect(again.body.error.message).toBe(
        "only a promoted request can be revoked; this one is revoked and stays revoked",
      );
      await eventually(
        "the live plane drops the revoked artifact",
        () =>
          sql<{
            live_eligible: boolean;
          }>`select live_eligible from bots.live_artifacts where request_id = ${id}`.execute(
            p.platform.db.db,
          ),
        (r) => r.rows[0]?.live_eligible === false,
      );
    });

    it("rejects with a reason; a decided request takes no further decision; revoke leaves non-promoted requests unchanged", async () => {
      const id = (await submit()).body.request_id;
      expect((await decide(id, "reject", "carol", {})).status).toBe(400);
      const rejected = await decide(id, "reject", "carol", {
        reason: "insufficient out-of-sample evidence",
      });
      expect(rejected.body.status).toBe("rejected");
      const late = await decide(id, "approve", "bob");
      expect(late.status).toBe(409);
      const pending = (await submit()).body.request_id;
      const revoke = await decide(pending, "revoke", "bob");
      expect(revoke.status).toBe(409);
      expect((await get(pending)).body.status).toBe("pending");
    });

    it("denies on a failed hard gate: risk REJECT, unknown version, kill switch engaged before or during review", async () => {
      const risk = await submit({ risk: { decision: "REJECT" } });
      expect(risk.body.status).toBe("denied");
      expect(risk.body.gates.find((g: { name: string }) => g.name === "risk_approved").passed).toBe(
        false,
      );
      const unknown = await submit({
        artifact: { bot_ref: "alpha", version: 9, version_hash: hash },
      });
      expect(unknown.body.status).toBe("denied");
      expect(
        unknown.body.gates.find((g: { name: string }) => g.name === "artifact_known").detail,
      ).toBe("bot alpha has no version 9 known to the live plane");

      const duringReview = (await submit()).body.request_id;
      await p.platform.kv.set("svc:bots:killswitch:fleet:majors", "drill");
      try {
        const before = await submit();
        expect(before.body.status).toBe("denied");
        expect(
          before.body.gates.find((g: { name: string }) => g.name === "kill_switch_clear").detail,
        ).toBe("engaged: svc:bots:killswitch:fleet:majors");
        const approve = await decide(duringReview, "approve", "bob");
        expect(approve.status).toBe(412);
        expect(approve.body.error.code).toBe("killswitch_engaged");
        expect((await get(duringReview)).body.status).toBe("denied");
      } finally {
        await p.platform.kv.delete("svc:bots:killswitch:fleet:majors");
      }
      await p.platform.kv.set(PLATFORM_KEY, "1");
      expect((await submit()).body.status).toBe("denied");
      await p.platform.kv.delete(PLATFORM_KEY);
    });

    it("waits for a human even when the submitter says none is required (no kind is listed in SVC_PROMOTION_SKIP_HUMAN_KINDS)", async () => {
      const res = await submit({ requires_human_approval: false });
      expect(res.body).toMatchObject({ status: "pending", requires_human_approval: true });
    });

    it("answers 410 Gone to a decision on an expired request", async () => {
      const id = (await submit()).body.request_id;
      await sql`update promotion.promotion_requests set expires_at = now() - interval '1 minute' where request_id = ${id}`.execute(
        p.platform.db.db,
      );
      const res = await decide(id, "approve", "bob");
      expect(res.status).toBe(410);
      expect(res.body.error.code).toBe("request_expired");
      expect((await get(id)).body.status).toBe("expired");
      expect((await decide(id, "reject", "bob", { reason: "x" })).status).toBe(410);
    });

    it("refuses bad input with a 4xx naming the field, storing nothing", async () => {
      const count = async () =>
        (await call(p.url, "GET", "/promotion/requests?limit=1000")).body.items.length;
      const before = await count();
      const noArtifact = await submit({ artifact: undefined });
      expect([noArtifact.status, noArtifact.body.error.details.field]).toEqual([400, "artifact"]);
      const noAllocation = await submit({ kind: "allocation", artifact: undefined });
      expect([noAllocation.status, noAllocation.body.error.details.field]).toEqual([
        400,
        "allocation",
      ]);
      const fail = await submit({ validation: { verdict: "FAIL" } });
      expect([fail.status, fail.body.error.code, fail.body.error.details.field]).toEqual([
        400,
        "validation_failed",
        "validation.verdict",
      ]);
      const badVerdict = await submit({ validation: { verdict: "MAYBE" } });
      expect(badVerdict.body.error.details.allowed).toEqual(["PASS", "PASS_WITH_FINDINGS", "FAIL"]);
      const first = await submit({ request_id: "dup-1" });
      expect(first.status).toBe(201);
      const dup = await call(
        p.url,
        "POST",
        "/promotion/requests",
        body({ request_id: "dup-1" }),
        as("alice"),
      );
      expect([dup.status, dup.body.error.code]).toEqual([409, "request_exists"]);
      expect((await get("nope")).status).toBe(404);
      const limit = await call(p.url, "GET", "/promotion/requests?limit=5000");
      expect([limit.status, limit.body.error.details.field]).toEqual([400, "limit"]);
      expect(await count()).toBe(before + 1);
    });

    it("lists with a status filter and a default limit", async () => {
      const pending = await call(p.url, "GET", "/promotion/requests?status=pending");
      expect(pending.body.items.every((r: { status: string }) => r.status === "pending")).toBe(
        true,
      );
      expect(
        (await call(p.url, "GET", "/promotion/requests")).body.items.length,
      ).toBeLessThanOrEqual(100);
    });
  },
);

describe("concurrent decisions on the real Postgres: exactly one wins", () => {
  let p: RunningPlatform;
  let hash: string;
  beforeAll(async () => {
    // strategy may be approved by policy here: a create that writes its decision and event too.
    // (Not drl_policy: its policy_model gate denies this bot, which runs no model.)
    p = await startTestPlatform("postgres", { SVC_PROMOTION_SKIP_HUMAN_KINDS: "strategy" });
    hash = (await call(p.url, "POST", "/bots", { name: "Race", kind: "trading" }, as("alice"))).body
      .spec_hash;
    await eventually(
      "the promotion service learns of the bot",
      () =>
        sql<{ n: number }>`select count(*)::int as n from promotion.known_bot_versions`.execute(
          p.platform.db.db,
        ),
      (r) => r.rows[0]!.n > 0,
    );
  });
  afterAll(async () => {
    await p?.close();
  });
  const submit = async (id: string, over: Record<string, unknown> = {}) =>
    call(
      p.url,
      "POST",
      "/promotion/requests",
      {
        request_id: id,
        kind: "strategy",
        artifact: { bot_ref: "race", version: 1, version_hash: hash },
        validation: { verdict: "PASS" },
        risk: { decision: "APPROVE" },
        ...over,
      },
      as("alice"),
    );
  const count = async (query: ReturnType<typeof sql<{ n: number }>>) =>
    (await query.execute(p.platform.db.db)).rows[0]!.n;
  const approvedEvents = () =>
    count(
      sql<{
        n: number;
      }>`select count(*)::int as n from promotion.outbox where subject = 'svc.promotion.approved'`,
    );

  it("20 simultaneous creates of one request_id: one recorded, 19 answered 409, one event for an approval by policy", async () => {
    const eventsBefore = await approvedEvents();
    for (const [id, over, status] of [
      ["twin-pending", {}, "pending"],
      ["twin-approved", { kind: "strategy", requires_human_approval: false }, "approved"],
    ] as const) {
      const results = await Promise.all(Array.from({ length: 20 }, () => submit(id, over)));
      const won = results.filter((r) => r.status === 201);
      expect(won.map((r) => r.body.status)).toEqual([status]);
      expect(results.filter((r) => r.status !== 201).map((r) => r.body.error.code)).toEqual(
        Array(19).fill("request_exists"),
      );
      expect(
        await count(
          sql<{
            n: number;
          }>`select count(*)::int as n from promotion.promotion_requests where request_id = ${id}`,
        ),
      ).toBe(1);
    }
    const decisions = (await call(p.url, "GET", "/promotion/requests/twin-approved")).body
      .decisions;
    expect(decisions.map((d: { action: string }) => d.action)).toEqual(["auto_approve"]);
    expect((await approvedEvents()) - eventsBefore).toBe(1);
  });
  const approvals = async (id: string) =>
    (
      await sql<{
        n: number;
      }>`select count(*)::int as n from promotion.promotion_decisions where request_id = ${id} and action = 'approve'`.execute(
        p.platform.db.db,
      )
    ).rows[0]!.n;

  it("gates on the bot as the projection holds it now, not as an earlier create saw it: moved to a fleet under a switch, it is denied", async () => {
    const mover = await call(
      p.url,
      "POST",
      "/bots",
      { name: "Mover", kind: "trading", fleet: "east" },
      as("alice"),
    );
    const fleetOfV1 = async () =>
      (
        await sql<{
          fleet: string;
        }>`select fleet from promotion.known_bot_versions where slug = 'mover' and version = 1`.execute(
          p.platform.db.db,
        )
      ).rows[0]?.fleet;
    await eventually("the promotion service learns of mover", fleetOfV1, (f) => f === "east");
    const artifact = { bot_ref: "mover", version: 1, version_hash: mover.body.spec_hash };
    expect((await submit("move-1", { artifact })).body.status).toBe("pending");
    await p.platform.kv.set("svc:bots:killswitch:fleet:west", "drill");
    try {
      const moved = await call(
        p.url,
        "PUT",
        "/bots/mover",
        { spec: { name: "Mover", kind: "trading", fleet: "west" } },
        as("alice"),
      );
      expect(moved.status).toBe(200);
      await eventually("version 1 follows the bot to west", fleetOfV1, (f) => f === "west");
      const after = await submit("move-2", { artifact });
      expect([after.body.status, after.body.gates.at(-1)]).toEqual([
        "denied",
        {
          name: "kill_switch_clear",
          passed: false,
          detail: "engaged: svc:bots:killswitch:fleet:west",
        },
      ]);
    } finally {
      await p.platform.kv.delete("svc:bots:killswitch:fleet:west");
    }
  });

  it("50 simultaneous approvals by 50 people: one approval, one decision, one event", async () => {
    await submit("race-50");
    const outboxBefore = (
      await sql<{
        n: number;
      }>`select count(*)::int as n from promotion.outbox where subject = 'svc.promotion.approved'`.execute(
        p.platform.db.db,
      )
    ).rows[0]!.n;
    const results = await Promise.all(
      Array.from({ length: 50 }, (_, i) =>
        call(p.url, "POST", "/promotion/requests/race-50/approve", {}, as(`approver-${i}`)),
      ),
    );
    const statuses = results.map((r) => r.status).sort();
    expect(statuses.filter((s) => s === 200)).toHaveLength(1);
    expect(statuses.filter((s) => s === 409)).toHaveLength(49);
    expect(results.find((r) => r.status === 409)!.body.error.code).toBe("invalid_transition");
    expect(await approvals("race-50")).toBe(1);
    const outboxAfter = (
      await sql<{
        n: number;
      }>`select count(*)::int as n from promotion.outbox where subject = 'svc.promotion.approved'`.execute(
        p.platform.db.db,
      )
    ).rows[0]!.n;
    expect(outboxAfter - outboxBefore).toBe(1);
  });

  it("approve racing reject, and revoke racing revoke", async () => {
    await submit("race-ar");
    const [a, r] = await Promise.all([
      call(p.url, "POST", "/promotion/requests/race-ar/approve", {}, as("bob")),
      call(p.url, "POST", "/promotion/requests/race-ar/reject", { reason: "no" }, as("carol")),
    ]);
    expect([a.status, r.status].sort()).toEqual([200, 409]);
    const decisions = (await call(p.url, "GET", "/promotion/requests/race-ar")).body.decisions;
    expect(decisions).toHaveLength(1);

    await submit("race-rr");
    await call(p.url, "POST", "/promotion/requests/race-rr/approve", {}, as("bob"));
    await eventually(
      "race-rr is promoted",
      () => call(p.url, "GET", "/promotion/requests/race-rr"),
      (res) => res.body.status === "promoted",
    );
    const revokes = await Promise.all(
      [1, 2, 3].map((i) =>
        call(p.url, "POST", "/promotion/requests/race-rr/revoke", {}, as(`r${i}`)),
      ),
    );
    expect(revokes.map((x) => x.status).sort()).toEqual([200, 409, 409]);
    const events = await sql<{
      n: number;
    }>`select count(*)::int as n from promotion.outbox where subject = 'svc.promotion.revoked'`.execute(
      p.platform.db.db,
    );
    expect(events.rows[0]!.n).toBe(1);
  });
});

describe("the approval-expiry sweeper", () => {
  it(
    "moves a pending request past its expires_at to expired without any decision",
    async () => {
      const p = await startTestPlatform("pglite", {
        SVC_APPROVAL_EXPIRY_ENFORCEMENT_ENABLED: "true",
        SVC_APPROVAL_TTL_SECONDS: "600",
        SVC_PROMOTION_SWEEP_INTERVAL_MS: "100",
      });
      try {
        const created = await call(
          p.url,
          "POST",
          "/promotion/requests",
          {
            request_id: "sweep-1",
            kind: "allocation",
            allocation: { capital: { majors: 1000 } },
            validation: { verdict: "PASS" },
            risk: { decision: "APPROVE" },
          },
          as("alice"),
        );
        expect(created.body.status).toBe("pending");
        expect(Date.parse(created.body.expires_at) - Date.now()).toBeGreaterThan(590_000);
        await sql`update promotion.promotion_requests set expires_at = now() - interval '1 second' where request_id = 'sweep-1'`.execute(
          p.platform.db.db,
        );
        // A read already shows a lapsed request as expired; the sweep is what records it.
        await eventually(
          "the sweep records sweep-1 as expired",
          async () =>
            (
              await sql<{
                status: string;
              }>`select status from promotion.promotion_requests where request_id = 'sweep-1'`.execute(
                p.platform.db.db,
              )
            ).rows[0]?.status,
          (s) => s === "expired",
        );
        expect((await call(p.url, "GET", "/promotion/requests/sweep-1")).body.status).toBe(
          "expired",
        );
      } finally {
        await p.close();
      }
    },
    PLATFORM_START_TIMEOUT_MS,
  );
});
