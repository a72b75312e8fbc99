import { createHash } from "node:crypto";
import { sql } from "kysely";
import { parse } from "yaml";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunningPlatform } from "@svc/all-in-one";
import { reportSchemaErrors } from "@svc/compliance";
import { approvedSession, as } from "../support/paper.js";
import { call, PLATFORM_START_TIMEOUT_MS, startTestPlatform } from "../support/test-platform.js";
import { eventually } from "../support/until.js";

const LIMITS = {
  max_order_units: 5,
  max_order_notional: 200_000,
  price_collar_pct: 5,
  max_orders_per_window: 10,
  throttle_window_s: 60,
  duplicate_window_s: 30,
  restricted_symbols: ["XYZ"],
  capital_limit: 10_000_000,
  credit_limit: 1_000_000,
};
const SPEC = {
  universe: { symbols: ["BTC-USD"] },
  engine: { initial_cash: 100_000, position_size: 0.5, high_frequency: true },
};
const YEAR = new Date().getUTCFullYear();

interface Article {
  article: string;
  title: string;
  verdict: string;
  basis: string;
  evidence: string[];
  attestations_required: string[];
  per_bot?: Array<{ bot: string; verdict: string; evidence: string[] }>;
}
interface Report {
  mifid_ii_rts_6: Record<string, Article>;
  sec_rule_15c3_5: Record<string, Article>;
  evidence: {
    scope: Record<string, unknown>;
    bot_inventory: Array<Record<string, unknown> & { slug: string; risk_limits: object }>;
    conformance_results: Array<{ id: string; bot_slug: string; passed: boolean; cases: object[] }>;
    stress_results: Array<{ id: string; bot_slug: string; stress: Record<string, unknown> }>;
    kill_switch_drills: Array<{
      id: string;
      verdict: string;
      per_bot: Array<{ bot_slug: string }>;
    }>;
  };
  attestations: Record<string, Record<string, unknown>>;
}

describe("the annual validation report (RTS 6, SEC 15c3-5) from the runs and drills the platform did", () => {
  let p: RunningPlatform;
  const ids = { conformance: "", stress: "", noCollar: "", drill: "" };

  /** Starts a compliance run and waits for the stored run to complete; its id. */
  async function run(slug: string, what: "conformance" | "stress"): Promise<string> {
    const started = await call(p.url, "POST", `/bots/${slug}/${what}`, {}, as("alice"));
    expect(started.status, JSON.stringify(started.body)).toBe(202);
    const done = await eventually(
      `the ${what} run of ${slug} completes`,
      () => call(p.url, "GET", started.body.results.href),
      (r) => r.body?.status === "completed" || r.body?.status === "failed",
      20_000,
    );
    expect(done.body.status, JSON.stringify(done.body)).toBe("completed");
    return started.body.run_id as string;
  }

  const deployment = async (slug: string, taskId: string) =>
    (await call(p.url, "GET", `/bots/${slug}/deployments`)).body.items.find(
      (d: { task_id: string }) => d.task_id === taskId,
    )?.status as string | undefined;

  const report = async (path: string) => {
    const res = await call(p.url, "GET", path);
    expect(res.status, res.text).toBe(200);
    return { res, doc: parse(res.text) as Report };
  };

  beforeAll(async () => {
    p = await startTestPlatform("pglite", {
      SVC_KILLSWITCH_POLL_INTERVAL_S: "1",
      SVC_KILLSWITCH_DRILL_DRAINING_S: "3",
      SVC_KILLSWITCH_DRILL_STOPPED_HF_S: "5",
      SVC_KILLSWITCH_DRILL_STOPPED_S: "20",
    });
    // vr-good: limits set, backtested, conformance, stress, then a drill on its paper session.
    const task = await approvedSession(p, "vr-good", "vr", 20, { ...SPEC, risk: LIMITS });
    const bt = await call(p.url, "POST", "/bots/vr-good/backtest", {});
    expect(bt.status, bt.text).toBe(202);
    await eventually(
      "the backtest of vr-good finishes",
      () => deployment("vr-good", bt.body.task_id),
      (s) => s === "success",
      20_000,
    );
    ids.conformance = await run("vr-good", "conformance");
    ids.stress = await run("vr-good", "stress");
    // vr-no-collar: no price collar, so the collar case of its conformance fails; no drill.
    const created = await call(
      p.url,
      "POST",
      "/bots",
      {
        name: "vr-no-collar",
        slug: "vr-no-collar",
        kind: "trading",
        strategy: { family: "ma_crossover", parameters: { fast: 3, slow: 8 } },
        ...SPEC,
        risk: { ...LIMITS, price_collar_pct: 0 },
      },
      as("alice"),
    );
    expect(created.status, created.text).toBe(201);
    ids.noCollar = await run("vr-no-collar", "conformance");

    await eventually(
      "vr-good's session runs",
      () => deployment("vr-good", task),
      (s) => s === "running",
    );
    const drill = await call(p.url, "POST", "/kill-switch/drills", { reason: "report drill" });
    expect(drill.status, drill.text).toBe(202);
    ids.drill = drill.body.id;
    const ended = await eventually(
      "the drill ends",
      async () => (await call(p.url, "GET", `/kill-switch/drills/${ids.drill}`)).body,
      (d) => d.state !== "running",
      30_000,
    );
    expect(ended).toMatchObject({ state: "finished", verdict: "pass" });
    // Stop the session the drill restarted, so nothing writes while the reports are read.
    await call(p.url, "POST", `/bots/vr-good/paper/stop/${task}`, {});
    await eventually(
      "vr-good's session stops",
      () => deployment("vr-good", task),
      (s) => s !== "running",
    );
  }, PLATFORM_START_TIMEOUT_MS + 90_000);
  afterAll(async () => {
    await p?.close();
  });

  it("reports each article of the bot from its runs and drill, citing them, and leaves the attestations empty", async () => {
    const { res, doc } = await report(`/bots/vr-good/risk/validation-report?year=${YEAR}`);
    expect(res.headers.get("content-type")).toMatch(/^application\/yaml/);
    expect(Object.keys(doc).sort()).toEqual([
      "attestations",
      "evidence",
      "mifid_ii_rts_6",
      "sec_rule_15c3_5",
    ]);
    expect(await reportSchemaErrors(doc)).toEqual([]);
    const bot = (await call(p.url, "GET", "/bots/vr-good")).body;
    const e = doc.evidence;
    expect(e.scope).toMatchObject({
      kind: "bot",
      bot: "vr-good",
      year: YEAR,
      period_start: `${YEAR}-01-01T00:00:00.000Z`,
      period_end: `${YEAR}-12-31T23:59:59.999Z`,
    });
    expect(e.bot_inventory).toEqual([
      expect.objectContaining({
        id: bot.id,
        slug: "vr-good",
        current_version: 1,
        spec_hash: bot.spec_hash,
        risk_limits: expect.objectContaining({ price_collar_pct: 5, max_order_units: 5 }),
      }),
    ]);
    expect(e.conformance_results.map((r) => r.id)).toEqual([ids.conformance]);
    expect(e.conformance_results[0]!.cases).toHaveLength(13);
    expect(e.stress_results.map((r) => r.id)).toEqual([ids.stress]);
    expect(e.stress_results[0]!.stress).toMatchObject({ controls_held: true, orders_lost: 0 });
    expect(e.kill_switch_drills.map((d) => d.id)).toEqual([ids.drill]);
    expect(e.kill_switch_drills[0]!.per_bot.map((b) => b.bot_slug)).toEqual(["vr-good"]);

    const rts = doc.mifid_ii_rts_6;
    const sec = doc.sec_rule_15c3_5;
    expect(Object.keys(rts)).toEqual([
      "article_6",
      "article_9",
      "article_10",
      "article_12",
      "article_15",
      "article_16",
      "article_17",
    ]);
    expect(Object.keys(sec)).toEqual(["c_1_i", "c_1_ii", "d", "e"]);
    expect(rts.article_6).toMatchObject({
      verdict: "pass",
      evidence: [`conformance_results/${ids.conformance}`],
    });
    expect(rts.article_10).toMatchObject({
      verdict: "pass",
      evidence: [`stress_results/${ids.stress}`],
    });
    expect(rts.article_12).toMatchObject({
      verdict: "pass",
      evidence: [`kill_switch_drills/${ids.drill}`],
    });
    expect(rts.article_15!.verdict).toBe("pass");
    expect(rts.article_15!.evidence).toEqual(
      ["max_order_notional", "max_order_units", "message_throttle", "price_collar"].map(
        (c) => `conformance_results/${ids.conformance}/cases/${c}`,
      ),
    );
    expect(sec.c_1_i).toMatchObject({
      verdict: "pass",
      evidence: [
        "capital_threshold",
        "credit_threshold",
        "fleet_capital_threshold",
        "fleet_credit_threshold",
      ].map((c) => `conformance_results/${ids.conformance}/cases/${c}`),
    });
    expect(sec.c_1_ii).toMatchObject({
      verdict: "pass",
      evidence: ["duplicate_order", "max_order_notional", "max_order_units", "price_collar"].map(
        (c) => `conformance_results/${ids.conformance}/cases/${c}`,
      ),
    });
    // Only people can say these; the platform never passes them.
    for (const a of [rts.article_9, rts.article_16, rts.article_17, sec.d, sec.e])
      expect(a!.verdict).toBe("not_evidenced");
    expect(rts.article_9!.attestations_required).toEqual([
      "internal_audit",
      "risk_management_function",
    ]);
    expect(sec.e!.attestations_required).toEqual(["ceo_certification"]);
    // Every reference points at an entry the report embeds.
    const embedded = new Set([
      ...e.bot_inventory.map((b) => `bot_inventory/${b.slug}`),
      ...e.conformance_results.map((r) => `conformance_results/${r.id}`),
      ...e.stress_results.map((r) => `stress_results/${r.id}`),
      ...e.kill_switch_drills.map((d) => `kill_switch_drills/${d.id}`),
    ]);
    for (const a of [...Object.values(rts), ...Object.values(sec)])
      for (const r of a.evidence) expect(embedded, r).toContain(r.replace(/\/cases\/.*$/, ""));

    expect(doc.attestations).toEqual({
      risk_management_function: {
        required_by: "RTS 6 Art. 9(2)",
        filled_by: "Head of Risk",
        signed_by: null,
        signed_at: null,
        statement: null,
      },
      internal_audit: {
        required_by: "RTS 6 Art. 9(3)",
        filled_by: "Head of Internal Audit",
        signed_by: null,
        signed_at: null,
        statement: null,
      },
      ceo_certification: {
        required_by: "SEC 15c3-5(e)",
        filled_by: "CEO",
        signed_by: null,
        signed_at: null,
        statement: null,
      },
    });
  });

  it("is byte-identical when asked again, carries its SHA-256, and writes no row anywhere", async () => {
    const rows = async () => {
      const tables = await sql<{ s: string; t: string }>`
        select table_schema as s, table_name as t from information_schema.tables
        where table_type = 'BASE TABLE' and table_schema not in ('pg_catalog', 'information_schema')
        order by 1, 2`.execute(p.platform.db.db);
      const counts: Record<string, number> = {};
      for (const { s, t } of tables.rows)
        counts[`${s}.${t}`] = (
          await sql<{
            n: number;
          }>`select count(*)::int as n from ${sql.table(`${s}.${t}`)}`.execute(p.platform.db.db)
        ).rows[0]!.n;
      return counts;
    };
    const before = await rows();
    expect(before["bots.bot_events"]).toBeGreaterThan(0);
    const path = `/bots/vr-good/risk/validation-report?year=${YEAR}`;
    const a = await report(path);
    const b = await report(path);
    const platform = await report(`/risk/validation-report?year=${YEAR}`);
    expect(b.res.text).toBe(a.res.text);
    const sha = createHash("sha256").update(a.res.text, "utf8").digest("hex");
    expect(a.res.headers.get("x-report-sha256")).toBe(sha);
    expect(b.res.headers.get("x-report-sha256")).toBe(sha);
    expect(platform.res.headers.get("x-report-sha256")).toBe(
      createHash("sha256").update(platform.res.text, "utf8").digest("hex"),
    );
    expect(await rows()).toEqual(before);
  });

  it("fails Art. 15 (and Art. 6) for a bot without a price collar, naming the case", async () => {
    const { doc } = await report(`/bots/vr-no-collar/risk/validation-report?year=${YEAR}`);
    expect(await reportSchemaErrors(doc)).toEqual([]);
    const a15 = doc.mifid_ii_rts_6.article_15!;
    expect(a15.verdict).toBe("fail");
    expect(a15.basis).toMatch(/price_collar failed \(.*risk\.price_collar_pct is not set/);
    expect(a15.evidence).toContain(`conformance_results/${ids.noCollar}/cases/price_collar`);
    expect(doc.mifid_ii_rts_6.article_6!.verdict).toBe("fail");
    // A price outside the collar is an erroneous order (c)(1)(ii); its thresholds held (c)(1)(i).
    expect(doc.sec_rule_15c3_5.c_1_ii!.verdict).toBe("fail");
    expect(doc.sec_rule_15c3_5.c_1_i!.verdict).toBe("pass");
    // Its conformance run is its own; vr-good's runs and drill are not in its report.
    expect(doc.evidence.conformance_results.map((r) => r.id)).toEqual([ids.noCollar]);
    expect(doc.evidence.kill_switch_drills).toEqual([]);
    expect(doc.mifid_ii_rts_6.article_12!.verdict).toBe("not_evidenced");
  });

  it("says Art. 12 is not evidenced for a year with no drill, rather than passing", async () => {
    // The bot existed the year before (as if created then), which had no drill and no run.
    await sql`update bots.bots set created_at = ${`${YEAR - 1}-06-01T00:00:00Z`}::timestamptz
              where slug = 'vr-no-collar'`.execute(p.platform.db.db);
    const { doc } = await report(`/bots/vr-no-collar/risk/validation-report?year=${YEAR - 1}`);
    expect(await reportSchemaErrors(doc)).toEqual([]);
    expect(doc.evidence.kill_switch_drills).toEqual([]);
    expect(doc.evidence.conformance_results).toEqual([]);
    expect(doc.mifid_ii_rts_6.article_12).toMatchObject({
      verdict: "not_evidenced",
      basis: `No kill-switch drill in ${YEAR - 1} judged a running session of this bot.`,
      evidence: [],
    });
    for (const a of [...Object.values(doc.mifid_ii_rts_6), ...Object.values(doc.sec_rule_15c3_5)])
      expect(a.verdict, a.article).not.toBe("pass");
  });

  it("refuses bad input with a 4xx naming the problem", async () => {
    const unknown = await call(
      p.url,
      "GET",
      `/bots/no-such-bot/risk/validation-report?year=${YEAR}`,
    );
    expect(unknown.status).toBe(404);
    expect(unknown.body.error.code).toBe("bot_not_found");
    const future = await call(
      p.url,
      "GET",
      `/bots/vr-good/risk/validation-report?year=${YEAR + 1}`,
    );
    expect(future.status).toBe(400);
    expect(future.body.error).toMatchObject({
      code: "invalid_parameter",
      details: { field: "year" },
    });
    expect(future.body.error.message).toMatch(/in the future/);
    const before = await call(
      p.url,
      "GET",
      `/bots/vr-good/risk/validation-report?year=${YEAR - 1}`,
    );
    expect(before.status).toBe(400);
    expect(before.body.error).toMatchObject({
      code: "invalid_parameter",
      details: { field: "year" },
    });
    expect(before.body.error.message).toMatch(/before bot vr-good existed/);
    // Unset: the previous calendar year, before vr-good existed.
    expect((await call(p.url, "GET", "/bots/vr-good/risk/validation-report")).status).toBe(400);
    const nul = await call(p.url, "GET", `/bots/vr%00good/risk/validation-report?year=${YEAR}`);
    expect(nul.status).toBe(400);
    expect(nul.text).toMatch(/bot_ref/);
    expect((await call(p.url, "GET", "/bots/vr-good/risk/validation-report?year=abc")).status).toBe(
      400,
    );
    const platformFuture = await call(p.url, "GET", `/risk/validation-report?year=${YEAR + 1}`);
    expect(platformFuture.status).toBe(400);
    expect(platformFuture.body.error.details.field).toBe("year");
  });

  it("refuses a year outside 2000 to this year, year=0 included, with a message stating both bounds", async () => {
    for (const route of ["/bots/vr-good/risk/validation-report", "/risk/validation-report"]) {
      for (const year of ["-1", "0", "1969", "1999", String(YEAR + 1), "99999999999"]) {
        const r = await call(p.url, "GET", `${route}?year=${year}`);
        expect([route, year, r.status, r.body?.error?.details?.field]).toEqual([
          route,
          year,
          400,
          "year",
        ]);
        if (Number.isSafeInteger(Number(year)) && Math.abs(Number(year)) < 2 ** 31)
          expect(r.body.error.message).toContain(`from 2000 to ${YEAR}`);
      }
    }
  });

  it("pages the bot list (as the platform report does) with `after`, refusing an id that is no bot's", async () => {
    const all = (await call(p.url, "GET", "/bots")).body.items.map((b: { id: string }) => b.id);
    expect(all).toHaveLength(2);
    const first = await call(p.url, "GET", "/bots?limit=1");
    expect(first.body.items.map((b: { id: string }) => b.id)).toEqual([all[0]]);
    const next = await call(p.url, "GET", `/bots?limit=1&after=${all[0]}`);
    expect(next.body.items.map((b: { id: string }) => b.id)).toEqual([all[1]]);
    const end = await call(p.url, "GET", `/bots?limit=1&after=${all[1]}`);
    expect(end.body.items).toEqual([]);
    const bad = await call(p.url, "GET", "/bots?after=00000000-0000-4000-8000-000000000000");
    expect(bad.status).toBe(400);
    expect(bad.body.error.details.field).toBe("after");
  });

  it("reports the platform over every bot, each judged, failing an article any bot fails", async () => {
    const { doc } = await report(`/risk/validation-report?year=${YEAR}`);
    expect(await reportSchemaErrors(doc)).toEqual([]);
    const all = (await call(p.url, "GET", "/bots?limit=1000")).body.items.map(
      (b: { slug: string }) => b.slug,
    );
    expect(doc.evidence.scope).toMatchObject({ kind: "platform", bot: null, bots: all.length });
    expect(doc.evidence.bot_inventory.map((b) => b.slug)).toEqual([...all].sort());
    expect(doc.evidence.conformance_results.map((r) => r.id).sort()).toEqual(
      [ids.conformance, ids.noCollar].sort(),
    );
    expect(doc.evidence.kill_switch_drills.map((d) => d.id)).toEqual([ids.drill]);
    const a15 = doc.mifid_ii_rts_6.article_15!;
    expect(a15.verdict).toBe("fail");
    expect(a15.per_bot!.map((b) => [b.bot, b.verdict])).toEqual([
      ["vr-good", "pass"],
      ["vr-no-collar", "fail"],
    ]);
    expect(doc.mifid_ii_rts_6.article_12!.per_bot!.map((b) => [b.bot, b.verdict])).toEqual([
      ["vr-good", "pass"],
      ["vr-no-collar", "not_evidenced"],
    ]);
    expect(doc.mifid_ii_rts_6.article_12!.verdict).toBe("not_evidenced");
  });
});
