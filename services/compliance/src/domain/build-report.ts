import { judgeBot, type Judged } from "./judge-bot.js";
import {
  RTS6_ARTICLES,
  SEC_PROVISIONS,
  type ArticleResult,
  type Attestation,
  type AttestationSlot,
  type BotEvidence,
  type ControlChangeEntry,
  type DrillEntry,
  type Rts6Key,
  type SecKey,
  type ValidationReport,
  type Verdict,
} from "./report-types.js";

type Meta = Pick<ArticleResult, "article" | "title" | "attestations_required">;

const RTS6: Record<Rts6Key, Meta> = {
  article_6: { article: "RTS 6 Art. 6", title: "Conformance testing", attestations_required: [] },
  article_9: {
    article: "RTS 6 Art. 9",
    title: "Annual self-assessment and validation",
    attestations_required: ["internal_audit", "risk_management_function"],
  },
  article_10: { article: "RTS 6 Art. 10", title: "Stress testing", attestations_required: [] },
  article_12: { article: "RTS 6 Art. 12", title: "Kill functionality", attestations_required: [] },
  article_15: { article: "RTS 6 Art. 15", title: "Pre-trade controls", attestations_required: [] },
  article_16: {
    article: "RTS 6 Art. 16",
    title: "Real-time monitoring",
    attestations_required: [],
  },
  article_17: { article: "RTS 6 Art. 17", title: "Post-trade controls", attestations_required: [] },
};

const SEC: Record<SecKey, Meta> = {
  c_1_i: {
    article: "SEC 15c3-5 (c)(1)(i)",
    title: "Credit and capital thresholds",
    attestations_required: [],
  },
  c_1_ii: {
    article: "SEC 15c3-5 (c)(1)(ii)",
    title: "Erroneous orders: price or size parameters, duplicates",
    attestations_required: [],
  },
  d: {
    article: "SEC 15c3-5 (d)",
    title: "Direct and exclusive control",
    attestations_required: [],
  },
  e: {
    article: "SEC 15c3-5 (e)",
    title: "Regular review and annual CEO certification",
    attestations_required: ["ceo_certification"],
  },
};

const slot = (required_by: string, filled_by: string): Attestation => ({
  required_by,
  filled_by,
  signed_by: null,
  signed_at: null,
  statement: null,
});

/** The generator leaves these empty: only the named people can fill them. */
export const ATTESTATIONS: Record<AttestationSlot, Attestation> = {
  risk_management_function: slot("RTS 6 Art. 9(2)", "Head of Risk"),
  internal_audit: slot("RTS 6 Art. 9(3)", "Head of Internal Audit"),
  ceo_certification: slot("SEC 15c3-5(e)", "CEO"),
};

const period = (year: number) => ({
  period_start: `${year}-01-01T00:00:00.000Z`,
  period_end: `${year}-12-31T23:59:59.999Z`,
});

/** Code-point order: the same under every locale, so the report's arrays never move. */
export const compare = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

const byTime =
  <T extends { id: string }>(at: (x: T) => string) =>
  (a: T, b: T) =>
    compare(at(a), at(b)) || compare(a.id, b.id);

/** A fail anywhere fails the platform; anything not evidenced keeps it from passing. */
function worst(verdicts: Verdict[]): Verdict {
  if (verdicts.includes("fail")) return "fail";
  if (verdicts.length === 0 || verdicts.includes("not_evidenced")) return "not_evidenced";
  return "pass";
}

function section<K extends string>(
  keys: readonly K[],
  meta: Record<K, Meta>,
  judge: (k: K) => Omit<ArticleResult, keyof Meta>,
): Record<K, ArticleResult> {
  return Object.fromEntries(keys.map((k) => [k, { ...judge(k), ...meta[k] }])) as Record<
    K,
    ArticleResult
  >;
}

/**
 * The control changes a report covers: the platform's, all of the year; a bot's, its own, its
 * fleet's limits and the kill-switch settings (which hold every bot).
 */
function changesCovered(
  scope: { kind: "bot" | "platform" },
  bots: BotEvidence[],
  changes: ControlChangeEntry[],
): ControlChangeEntry[] {
  const ids = new Set(bots.map((e) => e.bot.id));
  const fleets = new Set(bots.map((e) => e.bot.fleet).filter((f) => f !== ""));
  const covered =
    scope.kind === "platform"
      ? changes
      : changes.filter((c) =>
          c.bot_id !== null
            ? ids.has(c.bot_id)
            : c.kind === "kill_switch_settings" || (c.fleet !== null && fleets.has(c.fleet)),
        );
  return [...covered].sort(byTime((c) => c.changed_at));
}

/**
 * The report over `bots` (one bot, or every bot of the platform) for `year`. Pure: the same
 * records give the same report, with no clock read, so a signed report can be regenerated.
 * `drills` are the year's drills; a bot's report embeds only those it took part in. `changes`
 * are the year's material control changes; a bot's report lists those that touch it.
 */
export function buildReport(
  scope: { kind: "bot" | "platform"; year: number },
  bots: BotEvidence[],
  drills: DrillEntry[],
  changes: ControlChangeEntry[] = [],
): ValidationReport {
  const sorted = [...bots].sort((a, b) => compare(a.bot.slug, b.bot.slug));
  const judged = sorted.map((e) => ({ slug: e.bot.slug, ...judgeBot(e, scope.year) }));
  const result =
    <K extends string>(pick: (j: (typeof judged)[number]) => Record<K, Judged>) =>
    (k: K): Omit<ArticleResult, keyof Meta> => {
      const each = judged.map((j) => ({ bot: j.slug, ...pick(j)[k] }));
      if (scope.kind === "bot" && each.length === 1) return pick(judged[0]!)[k];
      const count = (v: Verdict) => `${each.filter((x) => x.verdict === v).length} ${v}`;
      return {
        verdict: worst(each.map((x) => x.verdict)),
        basis:
          each.length === 0
            ? `No bot existed in ${scope.year}.`
            : `${each.length} bot(s): ${count("pass")}, ${count("fail")}, ${count("not_evidenced")}; see per_bot.`,
        evidence: [...new Set(each.flatMap((x) => x.evidence))].sort(compare),
        per_bot: each,
      };
    };
  const botIds = new Set(sorted.map((e) => e.bot.id));
  const embedded =
    scope.kind === "platform"
      ? drills
      : drills
          .map((d) => ({ ...d, per_bot: d.per_bot.filter((b) => botIds.has(b.bot_id)) }))
          .filter((d) => d.per_bot.length > 0);
  return {
    mifid_ii_rts_6: section(
      RTS6_ARTICLES,
      RTS6,
      result((j) => j.rts6),
    ),
    sec_rule_15c3_5: section(
      SEC_PROVISIONS,
      SEC,
      result((j) => j.sec),
    ),
    evidence: {
      scope: {
        kind: scope.kind,
        bot: scope.kind === "bot" ? (sorted[0]?.bot.slug ?? null) : null,
        bots: sorted.length,
        year: scope.year,
        ...period(scope.year),
        schema_version: 1,
      },
      bot_inventory: sorted.map((e) => e.bot),
      conformance_results: sorted.flatMap((e) => e.conformance).sort(byTime((r) => r.created_at)),
      stress_results: sorted.flatMap((e) => e.stress).sort(byTime((r) => r.created_at)),
      kill_switch_drills: [...embedded]
        .map((d) => ({
          ...d,
          per_bot: [...d.per_bot].sort(
            (a, b) => compare(a.bot_slug, b.bot_slug) || compare(a.task_id, b.task_id),
          ),
        }))
        .sort(byTime((d) => d.started_at)),
      control_changes: changesCovered(scope, sorted, changes),
    },
    attestations: ATTESTATIONS,
  };
}
