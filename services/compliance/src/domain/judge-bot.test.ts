import { parse } from "yaml";
import { describe, expect, it } from "vitest";
import { reportSchemaErrors } from "../report/validate-report.js";
import { writeReport } from "../report/write-report.js";
import { buildReport } from "./build-report.js";
import { cites } from "./evidence-refs.js";
import { ART_15_SUB_POINTS, judgeBot, THRESHOLD_CASES } from "./judge-bot.js";
import type {
  BotEvidence,
  CaseEntry,
  ConformanceEntry,
  DrillEntry,
  StressEntry,
} from "./report-types.js";

const YEAR = 2025;
const BOT = {
  id: "bot-1",
  slug: "alpha",
  name: "alpha",
  kind: "trading",
  fleet: "",
  created_at: "2025-01-02T00:00:00.000Z",
  current_version: 2,
  spec_hash: "h2",
  risk_limits: {
    max_order_notional: 1,
    max_order_units: 1,
    capital_limit: 1_000_000,
    credit_limit: 50_000,
    price_collar_pct: 5,
    max_orders_per_window: 10,
    throttle_window_s: 60,
    duplicate_window_s: 30,
    duplicate_tolerance_pct: 0,
    restricted_symbols: [],
  },
};
const run = {
  bot_id: BOT.id,
  bot_slug: BOT.slug,
  status: "completed",
  version: 2,
  version_hash: "h2",
  passed: true,
  error: "",
  requested_by: "alice",
  started_at: "2025-03-01T00:00:01.000Z",
  finished_at: "2025-03-01T00:00:02.000Z",
};
const c = (name: string, article: string, passed = true): CaseEntry => ({
  name,
  article,
  expected: "refused",
  observed: passed ? "refused" : `risk.${name}_pct is not set`,
  passed,
  evidence: {},
});
const CASES = [
  c("market_order_accepted", "RTS 6 Art. 6"),
  c("max_order_units", "RTS 6 Art. 15(1)(c); SEC 15c3-5 (c)(1)(ii)"),
  c("max_order_notional", "RTS 6 Art. 15(1)(b); SEC 15c3-5 (c)(1)(ii)"),
  c("capital_threshold", "RTS 6 Art. 15; SEC 15c3-5 (c)(1)(i)"),
  c("credit_threshold", "RTS 6 Art. 15; SEC 15c3-5 (c)(1)(i)"),
  c("price_collar", "RTS 6 Art. 15(1)(a); SEC 15c3-5 (c)(1)(ii)"),
  c("duplicate_order", "SEC 15c3-5 (c)(1)(ii)"),
  c("message_throttle", "RTS 6 Art. 15(1)(d), 15(3)"),
  c("kill_switch_drain", "RTS 6 Art. 12"),
];
const conformance = (id: string, over: Partial<ConformanceEntry> = {}): ConformanceEntry => ({
  ...run,
  id,
  article: "RTS 6 Art. 6",
  created_at: `2025-03-0${id.length % 9}T00:00:00.000Z`,
  cases: CASES,
  ...over,
});
const stress = (over: Partial<NonNullable<StressEntry["stress"]>> = {}, passed = true) =>
  ({
    ...run,
    id: "s1",
    article: "RTS 6 Art. 10",
    created_at: "2025-04-01T00:00:00.000Z",
    passed,
    stress: {
      peak_source: "data_set",
      peak_messages_per_second: 3,
      peak_volume: 10,
      peak_multiple: 2,
      demanded_messages_per_second: 6,
      replayed_peak_volume: 20,
      orders_sent: 2000,
      orders_accepted: 1990,
      orders_rejected: 10,
      orders_lost: 0,
      controls_held: true,
      control_violations: [],
      rejections_by_control: {},
      throttle_expected: true,
      throttle_fired: true,
      latency: { p50_us: 5, p99_us: 12, max_us: 40 },
      capacity_messages_per_second: 100_000,
      headroom: 16_000,
      replay: "strategy",
      achieved_messages_per_second: 6,
      demanded_rate_reached: true,
      time_compression: 2,
      laps: 3,
      bars_replayed: 3000,
      max_volume_participation: 1,
      fills_volume_limited: 0,
      orders_cancelled_for_volume: 0,
      ...over,
    },
  }) satisfies StressEntry;
const drill = (id: string, verdict: "pass" | "fail", started_at: string): DrillEntry => ({
  id,
  started_at,
  ended_at: started_at,
  state: "finished",
  verdict,
  bots: 1,
  reason: "quarterly",
  started_by: "ops",
  note: "",
  per_bot: [
    {
      bot_id: BOT.id,
      bot_slug: BOT.slug,
      task_id: `t-${id}`,
      high_frequency: false,
      high_frequency_basis: "bars of 1h",
      draining_bound_ms: 10_000,
      stopped_bound_ms: 300_000,
      draining_ms: 800,
      stopped_ms: verdict === "pass" ? 1_500 : null,
      restarted: true,
      verdict,
      misses:
        verdict === "pass"
          ? []
          : [{ bound: "stopped", bound_ms: 300_000, observed_ms: null, message: "never stopped" }],
    },
  ],
});
const evidence = (over: Partial<BotEvidence> = {}): BotEvidence => ({
  bot: BOT,
  conformance: [conformance("c1")],
  stress: [stress()],
  drills: [drill("d1", "pass", "2025-05-01T00:00:00.000Z")],
  ...over,
});

describe("judging one bot's year", () => {
  it("passes what its runs and drills show, and leaves to people what only they can say", () => {
    const j = judgeBot(evidence(), YEAR);
    expect(j.rts6.article_6).toMatchObject({
      verdict: "pass",
      evidence: ["conformance_results/c1"],
    });
    expect(j.rts6.article_10).toMatchObject({ verdict: "pass", evidence: ["stress_results/s1"] });
    expect(j.rts6.article_12).toMatchObject({
      verdict: "pass",
      evidence: ["kill_switch_drills/d1"],
    });
    expect(j.rts6.article_15.verdict).toBe("pass");
    expect(j.rts6.article_15.evidence).toEqual([
      "conformance_results/c1/cases/max_order_notional",
      "conformance_results/c1/cases/max_order_units",
      "conformance_results/c1/cases/message_throttle",
      "conformance_results/c1/cases/price_collar",
    ]);
    expect(j.sec.c_1_i).toMatchObject({
      verdict: "pass",
      evidence: [
        "conformance_results/c1/cases/capital_threshold",
        "conformance_results/c1/cases/credit_threshold",
      ],
    });
    expect(j.sec.c_1_ii.evidence).toEqual([
      "conformance_results/c1/cases/duplicate_order",
      "conformance_results/c1/cases/max_order_notional",
      "conformance_results/c1/cases/max_order_units",
      "conformance_results/c1/cases/price_collar",
    ]);
    for (const v of [j.rts6.article_9, j.rts6.article_16, j.rts6.article_17, j.sec.d, j.sec.e])
      expect(v.verdict).toBe("not_evidenced");
  });

  it("fails Art. 6 and Art. 15 when the collar case failed, naming the case", () => {
    const cases = CASES.map((x) => (x.name === "price_collar" ? c(x.name, x.article, false) : x));
    const j = judgeBot(
      evidence({ conformance: [conformance("c1", { cases, passed: false })] }),
      YEAR,
    );
    expect(j.rts6.article_6.verdict).toBe("fail");
    expect(j.rts6.article_15.verdict).toBe("fail");
    expect(j.rts6.article_15.basis).toMatch(
      /price_collar failed \(risk\.price_collar_pct is not set\)/,
    );
    expect(j.sec.c_1_ii.verdict).toBe("fail");
    expect(j.sec.c_1_i.verdict).toBe("pass");
  });

  it("judges the latest run of the current version only, never an older version's", () => {
    const old = conformance("c0", { version: 1, version_hash: "h1" });
    expect(judgeBot(evidence({ conformance: [old] }), YEAR).rts6.article_6).toMatchObject({
      verdict: "not_evidenced",
      basis: expect.stringMatching(/tested version\(s\) 1, not the current version 2/),
    });
    const failedFirst = conformance("c1", {
      passed: false,
      cases: [c("x", "RTS 6 Art. 6", false)],
    });
    const laterPass = conformance("c22", { created_at: "2025-06-01T00:00:00.000Z" });
    expect(
      judgeBot(evidence({ conformance: [failedFirst, laterPass] }), YEAR).rts6.article_6,
    ).toMatchObject({ verdict: "pass", evidence: ["conformance_results/c22"] });
  });

  it("fails (c)(1)(i) when a threshold case failed, naming it, whatever the limits say", () => {
    const cases = CASES.map((x) =>
      x.name === "credit_threshold" ? c(x.name, x.article, false) : x,
    );
    const j = judgeBot(
      evidence({ conformance: [conformance("c1", { cases, passed: false })] }),
      YEAR,
    );
    expect(j.sec.c_1_i).toMatchObject({
      verdict: "fail",
      basis: expect.stringMatching(
        /credit_threshold failed \(risk\.credit_threshold_pct is not set\)/,
      ),
      evidence: [
        "conformance_results/c1/cases/capital_threshold",
        "conformance_results/c1/cases/credit_threshold",
      ],
    });
  });

  it("leaves (c)(1)(i) not evidenced without a run, or on a run that crafted no threshold breach", () => {
    expect(judgeBot(evidence({ conformance: [] }), YEAR).sec.c_1_i).toMatchObject({
      verdict: "not_evidenced",
      basis: expect.stringMatching(/No conformance test of the current version/),
    });
    // A run of the older suite: the order-value case cited (c)(1)(i) and no threshold was breached.
    const older = [
      c("max_order_notional", "RTS 6 Art. 15(1)(b); SEC 15c3-5 (c)(1)(i)"),
      c("max_order_units", "RTS 6 Art. 15(1)(c); SEC 15c3-5 (c)(1)(ii)"),
    ];
    expect(
      judgeBot(evidence({ conformance: [conformance("c1", { cases: older })] }), YEAR).sec.c_1_i,
    ).toMatchObject({
      verdict: "not_evidenced",
      basis: expect.stringMatching(/crafted no breach for capital_threshold, credit_threshold/),
    });
  });

  it("leaves Art. 15 not evidenced when a sub-point of 15(1) has no case", () => {
    const cases = CASES.filter((x) => x.name !== "message_throttle");
    const j = judgeBot(evidence({ conformance: [conformance("c1", { cases })] }), YEAR);
    expect(j.rts6.article_15).toMatchObject({
      verdict: "not_evidenced",
      basis: expect.stringMatching(/none shows RTS 6 Art\. 15\(1\)\(d\)/),
    });
  });

  it("fails stress that lost an order and does not pass one below twice the peak", () => {
    expect(
      judgeBot(evidence({ stress: [stress({ orders_lost: 1 }, false)] }), YEAR).rts6.article_10
        .verdict,
    ).toBe("fail");
    expect(
      judgeBot(evidence({ stress: [stress({ peak_multiple: 1.5 })] }), YEAR).rts6.article_10
        .verdict,
    ).toBe("not_evidenced");
  });

  it("does not pass a strategy replay that never reached the demanded rate, and says how far it got", () => {
    const short = stress({ demanded_rate_reached: false, achieved_messages_per_second: 2 });
    expect(judgeBot(evidence({ stress: [short] }), YEAR).rts6.article_10).toMatchObject({
      verdict: "not_evidenced",
      basis: expect.stringMatching(/reached 2 msg\/s of the 6 demanded/),
    });
    // A run from before replays were strategy-driven sent scripted orders at the demanded rate.
    const scripted = stress({ replay: "", demanded_rate_reached: false });
    expect(judgeBot(evidence({ stress: [scripted] }), YEAR).rts6.article_10.verdict).toBe("pass");
  });

  it("says Art. 12 is not evidenced in a year without a drill, and fails on a missed bound in the latest", () => {
    expect(judgeBot(evidence({ drills: [] }), YEAR).rts6.article_12).toMatchObject({
      verdict: "not_evidenced",
      basis: "No kill-switch drill in 2025 judged a running session of this bot.",
    });
    const drills = [
      drill("d1", "pass", "2025-02-01T00:00:00.000Z"),
      drill("d2", "fail", "2025-08-01T00:00:00.000Z"),
    ];
    expect(judgeBot(evidence({ drills }), YEAR).rts6.article_12).toMatchObject({
      verdict: "fail",
      basis: expect.stringMatching(/d2.*never stopped/),
      evidence: ["kill_switch_drills/d1", "kill_switch_drills/d2"],
    });
  });

  it("reads which provisions a case cites without confusing (c)(1)(i) with (c)(1)(ii)", () => {
    expect(cites("SEC 15c3-5 (c)(1)(ii)", "SEC 15c3-5 (c)(1)(i)")).toBe(false);
    expect(cites("RTS 6 Art. 15(1)(b); SEC 15c3-5 (c)(1)(i)", "SEC 15c3-5 (c)(1)(i)")).toBe(true);
    expect(cites("RTS 6 Art. 15(1)(d), 15(3)", "RTS 6 Art. 15(1)(d)")).toBe(true);
    expect(cites("RTS 6 Art. 150", "RTS 6 Art. 15(")).toBe(false);
  });
});

describe("the report", () => {
  it("fails a platform article when any bot fails, and passes none with no bots", async () => {
    const other = { ...BOT, id: "bot-2", slug: "beta" };
    const bad = evidence({
      bot: other,
      conformance: [conformance("c9", { bot_id: "bot-2", passed: false })],
    });
    const r = buildReport({ kind: "platform", year: YEAR }, [bad, evidence()], []);
    expect(r.mifid_ii_rts_6.article_6.verdict).toBe("fail");
    expect(r.mifid_ii_rts_6.article_6.per_bot!.map((b) => [b.bot, b.verdict])).toEqual([
      ["alpha", "pass"],
      ["beta", "fail"],
    ]);
    expect(r.evidence.bot_inventory.map((b) => b.slug)).toEqual(["alpha", "beta"]);
    const empty = buildReport({ kind: "platform", year: YEAR }, [], []);
    expect(empty.mifid_ii_rts_6.article_6.verdict).toBe("not_evidenced");
    expect(await reportSchemaErrors(empty)).toEqual([]);
  });

  it("writes the same bytes for the same records, parses back and conforms to its schema", async () => {
    const a = await writeReport(buildReport({ kind: "bot", year: YEAR }, [evidence()], []));
    const b = await writeReport(
      buildReport({ kind: "bot", year: YEAR }, [evidence({ drills: [...evidence().drills] })], []),
    );
    expect(a.yaml).toBe(b.yaml);
    expect(a.sha256).toBe(b.sha256);
    const doc = parse(a.yaml) as Record<string, unknown>;
    expect(Object.keys(doc)).toEqual([
      "attestations",
      "evidence",
      "mifid_ii_rts_6",
      "sec_rule_15c3_5",
    ]);
    expect(await reportSchemaErrors(doc)).toEqual([]);
    expect(await reportSchemaErrors({ ...doc, extra: 1 })).not.toEqual([]);
    expect(Object.keys(doc.mifid_ii_rts_6 as object)).toEqual([
      "article_6",
      "article_9",
      "article_10",
      "article_12",
      "article_15",
      "article_16",
      "article_17",
    ]);
    expect(a.yaml).toContain('period_start: "2025-01-01T00:00:00.000Z"');
  });
});

describe("the articles the report judges conformance cases by", () => {
  it("come from the pre-trade controls' descriptions (lib/controls), the registry the suite is built from", () => {
    expect(ART_15_SUB_POINTS).toEqual([
      "RTS 6 Art. 15(1)(a)",
      "RTS 6 Art. 15(1)(b)",
      "RTS 6 Art. 15(1)(c)",
      "RTS 6 Art. 15(1)(d)",
    ]);
    expect(THRESHOLD_CASES).toEqual(["capital_threshold", "credit_threshold"]);
  });
});
