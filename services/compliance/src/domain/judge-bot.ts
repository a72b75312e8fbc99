import { citedProvisions, PRE_TRADE_CONTROLS } from "@svc/lib/controls";
import { cites, ref } from "./evidence-refs.js";
import type {
  ArticleResult,
  BotEvidence,
  ConformanceEntry,
  DrillBotEntry,
  DrillEntry,
  Rts6Key,
  SecKey,
  StressEntry,
  Verdict,
} from "./report-types.js";

export type Judged = Pick<ArticleResult, "verdict" | "basis" | "evidence">;

const judged = (verdict: Verdict, basis: string, evidence: string[] = []): Judged => ({
  verdict,
  basis,
  evidence: [...new Set(evidence)].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)),
});

/**
 * The latest completed run of the bot's current version (same spec hash): an article is judged
 * on the version that trades, never on one it replaced. Runs arrive oldest first.
 */
function latestOfCurrentVersion<R extends ConformanceEntry | StressEntry>(
  e: BotEvidence,
  runs: R[],
): { run?: R; why: string } {
  const completed = runs.filter((r) => r.status === "completed");
  const current = completed.filter((r) => r.version_hash === e.bot.spec_hash);
  const run = current.at(-1);
  if (run) return { run, why: "" };
  if (completed.length === 0) return { why: "no completed run in the year" };
  const versions = [...new Set(completed.map((r) => r.version))].sort((a, b) => a - b);
  return {
    why: `the year's completed runs tested version(s) ${versions.join(", ")}, not the current version ${e.bot.current_version} (${e.bot.spec_hash})`,
  };
}

const describeRun = (r: ConformanceEntry | StressEntry) =>
  `run ${r.id} of version ${r.version} (${r.version_hash}), finished ${r.finished_at ?? "?"}`;

/** RTS 6 Art. 6: the current version passed every case of its latest conformance run. */
export function judgeConformance(e: BotEvidence): Judged {
  const { run, why } = latestOfCurrentVersion(e, e.conformance);
  if (!run) return judged("not_evidenced", `No conformance test of the current version: ${why}.`);
  const failed = run.cases.filter((c) => !c.passed);
  if (run.passed && failed.length === 0)
    return judged(
      "pass",
      `All ${run.cases.length} cases passed in conformance ${describeRun(run)}.`,
      [ref.conformance(run)],
    );
  return judged(
    "fail",
    `Conformance ${describeRun(run)} failed: ${failed.map((c) => `${c.name} (${c.observed})`).join("; ") || "the run did not pass"}.`,
    [ref.conformance(run), ...failed.map((c) => ref.conformanceCase(run, c))],
  );
}

/**
 * The cases of the latest conformance run citing `provision`: fail if any failed, pass if all
 * passed and each of `subPoints` (e.g. 15(1)(a) to (d)) has a case, not evidenced otherwise.
 */
export function judgeControlCases(
  e: BotEvidence,
  provision: string,
  label: string,
  subPoints: readonly string[] = [],
): Judged {
  const { run, why } = latestOfCurrentVersion(e, e.conformance);
  if (!run) return judged("not_evidenced", `No conformance test of the current version: ${why}.`);
  const cases = run.cases.filter((c) => cites(c.article, provision));
  const refs = cases.map((c) => ref.conformanceCase(run, c));
  if (cases.length === 0)
    return judged("not_evidenced", `Conformance ${describeRun(run)} has no case citing ${label}.`, [
      ref.conformance(run),
    ]);
  const failed = cases.filter((c) => !c.passed);
  if (failed.length > 0)
    return judged(
      "fail",
      `In conformance ${describeRun(run)}, ${failed.map((c) => `${c.name} failed (${c.observed})`).join("; ")}.`,
      refs,
    );
  const uncovered = subPoints.filter((p) => !cases.some((c) => cites(c.article, p)));
  if (uncovered.length > 0)
    return judged(
      "not_evidenced",
      `The cases citing ${label} passed, but none shows ${uncovered.join(", ")}.`,
      refs,
    );
  return judged(
    "pass",
    `Each control case citing ${label} (${cases.map((c) => c.name).join(", ")}) fired on its crafted breach in conformance ${describeRun(run)}.`,
    refs,
  );
}

/**
 * The conformance cases crafting a breach of the bot's own capital and credit thresholds: the
 * bot-scoped controls citing (c)(1)(i) (lib/controls, the registry's descriptions). A fleet's
 * thresholds cite it too, but a bot in no fleet has none, so they are not required here.
 */
export const THRESHOLD_CASES: readonly string[] = PRE_TRADE_CONTROLS.filter(
  (c) => c.scope === "bot" && cites(c.articles, "SEC 15c3-5 (c)(1)(i)"),
).map((c) => c.id);

/** The sub-points of RTS 6 Art. 15(1) the controls serve, each of which a case must show. */
export const ART_15_SUB_POINTS: readonly string[] = [
  ...new Set(
    citedProvisions()
      .map((p) => p.split(",")[0]!.trim())
      .filter((p) => p.startsWith("RTS 6 Art. 15(1)(")),
  ),
].sort();

/**
 * SEC 15c3-5 (c)(1)(i): the capital and credit threshold cases of the latest conformance run. A
 * run of an older suite, which crafted no breach of either, cannot evidence it, even when a case
 * of it cited (c)(1)(i) (the order-value case once did).
 */
export function judgeThresholds(e: BotEvidence): Judged {
  const label = "SEC 15c3-5 (c)(1)(i)";
  const cases = judgeControlCases(e, label, label);
  if (cases.verdict === "fail") return cases;
  const { run } = latestOfCurrentVersion(e, e.conformance);
  if (!run) return cases;
  const missing = THRESHOLD_CASES.filter(
    (name) => !run.cases.some((c) => c.name === name && cites(c.article, label)),
  );
  if (missing.length === 0) return cases;
  return judged(
    "not_evidenced",
    `Conformance ${describeRun(run)} crafted no breach for ${missing.join(", ")}, which ${label} rests on.`,
    cases.evidence.length > 0 ? cases.evidence : [ref.conformance(run)],
  );
}

/** RTS 6 Art. 10: the latest stress run of the current version, at twice the peak or more. */
export function judgeStress(e: BotEvidence): Judged {
  const { run, why } = latestOfCurrentVersion(e, e.stress);
  if (!run || !run.stress)
    return judged(
      "not_evidenced",
      `No stress test of the current version: ${why || "no results"}.`,
    );
  const s = run.stress;
  const measured = `controls held: ${s.controls_held}, orders lost: ${s.orders_lost}, ${s.peak_multiple}x the peak of ${s.peak_messages_per_second} msg/s, latency p99 ${s.latency.p99_us} us, headroom ${s.headroom}`;
  if (!run.passed || !s.controls_held || s.orders_lost > 0)
    return judged(
      "fail",
      `Stress ${describeRun(run)} failed (${measured}${s.control_violations.length ? `; ${s.control_violations.join("; ")}` : ""}).`,
      [ref.stress(run)],
    );
  if (s.peak_multiple < 2)
    return judged(
      "not_evidenced",
      `Stress ${describeRun(run)} held, but at ${s.peak_multiple}x the peak, below the 2x Art. 10 asks for.`,
      [ref.stress(run)],
    );
  // A strategy-driven replay that never sent its orders as fast as asked did not test Art. 10's
  // load, however well the controls held. (Runs made before replays were strategy-driven sent
  // scripted orders at the demanded rate.)
  if (s.replay !== "" && !s.demanded_rate_reached)
    return judged(
      "not_evidenced",
      `Stress ${describeRun(run)} held, but the bot's strategy reached ${s.achieved_messages_per_second} msg/s of the ${s.demanded_messages_per_second} demanded, even with its clock ${s.time_compression}x faster: the load Art. 10 asks for was not reached.`,
      [ref.stress(run)],
    );
  return judged("pass", `Stress ${describeRun(run)} held (${measured}).`, [ref.stress(run)]);
}

/** The bot's judged results in the year's drills, oldest first. */
function drillResults(e: BotEvidence): Array<{ drill: DrillEntry; result: DrillBotEntry }> {
  return e.drills.flatMap((drill) =>
    drill.per_bot
      .filter((b) => b.bot_id === e.bot.id && (b.verdict === "pass" || b.verdict === "fail"))
      .map((result) => ({ drill, result })),
  );
}

/** RTS 6 Art. 12: the bot's result in the latest drill of the year it ran in. */
export function judgeKillFunction(e: BotEvidence, year: number): Judged {
  const results = drillResults(e);
  const last = results.at(-1);
  if (!last)
    return judged(
      "not_evidenced",
      `No kill-switch drill in ${year} judged a running session of this bot.`,
    );
  const refs = results.map((r) => ref.drill(r.drill));
  const r = last.result;
  const timing = `draining ${r.draining_ms ?? "not observed"} ms (bound ${r.draining_bound_ms}), stopped ${r.stopped_ms ?? "not observed"} ms (bound ${r.stopped_bound_ms})`;
  if (r.verdict === "pass")
    return judged(
      "pass",
      `In the latest drill of ${year} (${last.drill.id}, ${last.drill.started_at}) the bot met its bounds: ${timing}.`,
      refs,
    );
  return judged(
    "fail",
    `In the latest drill of ${year} (${last.drill.id}, ${last.drill.started_at}) the bot missed its bounds: ${r.misses.map((m) => m.message).join("; ") || timing}.`,
    refs,
  );
}

/** Every record of the bot an article may rest on, for the articles a person must sign. */
function allRefs(e: BotEvidence): string[] {
  return [
    ref.bot(e.bot.slug),
    ...e.conformance.map(ref.conformance),
    ...e.stress.map(ref.stress),
    ...drillResults(e).map((r) => ref.drill(r.drill)),
  ];
}

/** One bot's verdict on each article the report carries. */
export function judgeBot(
  e: BotEvidence,
  year: number,
): { rts6: Record<Rts6Key, Judged>; sec: Record<SecKey, Judged> } {
  return {
    rts6: {
      article_6: judgeConformance(e),
      article_9: judged(
        "not_evidenced",
        "The annual self-assessment is this report once the risk-management function has drawn it up (Art. 9(2)) and internal audit has reviewed it (Art. 9(3)); the platform cannot sign for either.",
        allRefs(e),
      ),
      article_10: judgeStress(e),
      article_12: judgeKillFunction(e, year),
      article_15: judgeControlCases(e, "RTS 6 Art. 15(", "RTS 6 Art. 15", [...ART_15_SUB_POINTS]),
      article_16: judged(
        "not_evidenced",
        "The platform records every refused order as an event and times the kill switch in drills (cited), but it has no real-time monitoring with alerts to staff whose alerts it could show; a person must evidence Art. 16.",
        drillResults(e).map((r) => ref.drill(r.drill)),
      ),
      article_17: judged(
        "not_evidenced",
        "Post-trade controls (continuous assessment of market and credit risk from executed trades) are not run as checks the platform records; a person must evidence Art. 17.",
      ),
    },
    sec: {
      c_1_i: judgeThresholds(e),
      c_1_ii: judgeControlCases(e, "SEC 15c3-5 (c)(1)(ii)", "SEC 15c3-5 (c)(1)(ii)"),
      d: judged(
        "not_evidenced",
        "Direct and exclusive control of the risk controls by the broker-dealer is an organisational fact the platform's records cannot show; the limits in force are in bot_inventory.",
        [ref.bot(e.bot.slug)],
      ),
      e: judged(
        "not_evidenced",
        "The regular review of the controls' effectiveness rests on the runs and drills cited; the annual certification is the CEO's and is not signed.",
        allRefs(e),
      ),
    },
  };
}
