import { deflatedSharpeFromTrials, probabilityOfBacktestOverfitting } from "@svc/lib/quant";
import type {
  GateOutcomeRow,
  KnownVersionRow,
  PromotionStatusName,
} from "../store/promotion.table.js";

export type PromotionKindName = "strategy" | "drl_policy" | "allocation";

/** Everything the deterministic gates look at; gathered by the handler, judged here. */
export interface GateInput {
  kind: PromotionKindName;
  validationVerdict: "PASS" | "PASS_WITH_FINDINGS" | "FAIL";
  riskDecision: "APPROVE" | "REJECT";
  artifact?: {
    botRef: string;
    version: number;
    versionHash: string;
    strategyDigest?: string;
    /** The models the submitter says the version runs (name to digest); empty or absent: unchecked. */
    modelDigests?: Record<string, string>;
  };
  /** The bot version the artifact names, as the bots service announced it; null if unknown. */
  knownVersion: KnownVersionRow | null;
  killSwitch: { engagedKeys: string[] };
  evidence?: {
    deflatedSharpeRatio: number;
    probabilityOfBacktestOverfitting: number;
    trialCount: number;
    trialLedgerRef: string;
  };
  policy: GatePolicy;
  requiresHumanApproval: boolean;
  /** The TrialLedger's trials of the artifact's bot (every version), oldest first. */
  ledger?: Array<{
    specHash: string;
    dailyReturns: number[];
    /** '' when unknown (projected before it was kept). */
    dataSource?: string;
    /** The sweep it was a combination of; '' or absent for a backtest of the version as it is. */
    sweepId?: string;
  }>;
  /** An allocation's targets, each with the bots it funds and how many backtests each has in the ledger. */
  allocationLedger?: Array<{ target: string; bots: Array<{ slug: string; trials: number }> }>;
}

/** The firm's model-risk policy: which optional gates run and their thresholds. */
export interface GatePolicy {
  labEvidenceEnforce: boolean;
  trialLedgerEnforce: boolean;
  minDeflatedSharpe: number;
  maxProbabilityOfOverfitting: number;
  /** The fewest trials of the bot the trial-ledger gate judges (SVC_TRIAL_LEDGER_MIN_TRIALS). */
  minTrials: number;
}

export const DEFAULT_GATE_POLICY: GatePolicy = {
  labEvidenceEnforce: false,
  trialLedgerEnforce: false,
  minDeflatedSharpe: 0.95,
  maxProbabilityOfOverfitting: 0.5,
  minTrials: 2,
};

/**
 * The deterministic gates, always in this order, every outcome recorded:
 * 1. validation_not_fail: the independent validation did not FAIL;
 * 2. risk_approved: the risk engine said APPROVE;
 * 3. artifact_known: the artifact names a bot version the live plane has, with the same hash;
 * 4. kill_switch_clear: no kill switch engaged at the platform, the bot's fleet or the bot;
 * 5. lab_evidence (SVC_PROMOTION_LAB_EVIDENCE_ENFORCE): a complete EvidenceBundle within thresholds;
 * 6. trial_ledger (SVC_TRIAL_LEDGER_N_ENFORCE): N and the returns come from the TrialLedger.
 * Any failure denies; otherwise the request waits for a human unless none is required.
 */
export function runGates(i: GateInput): { gates: GateOutcomeRow[]; status: PromotionStatusName } {
  const gates: GateOutcomeRow[] = [];
  const gate = (name: string, passed: boolean, detail: string) =>
    gates.push({ name, passed, detail });

  gate(
    "validation_not_fail",
    i.validationVerdict !== "FAIL",
    `validation verdict ${i.validationVerdict}`,
  );
  gate("risk_approved", i.riskDecision === "APPROVE", `risk decision ${i.riskDecision}`);
  if (i.artifact) {
    const k = i.knownVersion;
    const claimed = i.artifact.strategyDigest;
    const hashMatches = k !== null && k.spec_hash === i.artifact.versionHash;
    const codeMatches = !claimed || (k !== null && k.strategy_digest === claimed);
    const code = k?.strategy_digest ? `, strategy code ${k.strategy_digest}` : "";
    const runs = modelsText(k?.model_digests);
    const claimedModels = i.artifact.modelDigests ?? {};
    const modelsMatch =
      Object.keys(claimedModels).length === 0 ||
      (k !== null && sameModels(JSON.parse(k.model_digests ?? "{}"), claimedModels));
    gate(
      "artifact_known",
      hashMatches && codeMatches && modelsMatch,
      k === null
        ? `bot ${i.artifact.botRef} has no version ${i.artifact.version} known to the live plane`
        : !hashMatches
          ? `version ${k.version} of bot ${k.slug} has hash ${k.spec_hash}, not ${i.artifact.versionHash}`
          : !codeMatches
            ? `version ${k.version} of bot ${k.slug} runs ${k.strategy_digest ? `strategy code ${k.strategy_digest}` : "a built-in family"}, not ${claimed}`
            : !modelsMatch
              ? `version ${k.version} of bot ${k.slug} runs ${runs || "no model"}, not ${modelsText(JSON.stringify(claimedModels))}`
              : `bot ${k.slug} version ${k.version} (${k.spec_hash.slice(0, 12)}${code}${runs ? `, ${runs}` : ""})`,
    );
    // A drl_policy promotion promotes a policy network: a version that runs no model has none.
    if (i.kind === "drl_policy")
      gate(
        "policy_model",
        k !== null && !!k.model_digests,
        k?.model_digests
          ? `the policy runs ${runs}`
          : "a drl_policy promotion needs a version whose spec.models names an uploaded ONNX model (digest); this one runs none",
      );
  }
  gate(
    "kill_switch_clear",
    i.killSwitch.engagedKeys.length === 0,
    i.killSwitch.engagedKeys.length === 0
      ? "no kill switch engaged"
      : `engaged: ${i.killSwitch.engagedKeys.join(", ")}`,
  );
  if (i.policy.labEvidenceEnforce) gates.push(labEvidenceGate(i));
  if (i.policy.trialLedgerEnforce) gates.push(trialLedgerGate(i));
  const status: PromotionStatusName = gates.some((g) => !g.passed)
    ? "denied"
    : i.requiresHumanApproval
      ? "pending"
      : "approved";
  return { gates, status };
}

/** "model name sha256:..., ..." of a version's models (JSON of name to digest); '' for none. */
function modelsText(json: string | null | undefined): string {
  const models = Object.entries(JSON.parse(json ?? "{}") as Record<string, string>);
  return models.length ? `model ${models.map(([n, d]) => `${n} ${d}`).join(", ")}` : "";
}

function sameModels(a: Record<string, string>, b: Record<string, string>): boolean {
  const ka = Object.keys(a);
  return ka.length === Object.keys(b).length && ka.every((n) => a[n] === b[n]);
}

function labEvidenceGate(i: GateInput): GateOutcomeRow {
  const e = i.evidence;
  if (
    !e ||
    !(e.trialCount > 0) ||
    !e.trialLedgerRef ||
    !Number.isFinite(e.deflatedSharpeRatio) ||
    !Number.isFinite(e.probabilityOfBacktestOverfitting)
  ) {
    return {
      name: "lab_evidence",
      passed: false,
      detail:
        "an EvidenceBundle with deflated_sharpe_ratio, probability_of_backtest_overfitting, trial_count and trial_ledger_ref is required",
    };
  }
  const dsrOk = e.deflatedSharpeRatio >= i.policy.minDeflatedSharpe;
  const pboOk = e.probabilityOfBacktestOverfitting <= i.policy.maxProbabilityOfOverfitting;
  return {
    name: "lab_evidence",
    passed: dsrOk && pboOk,
    detail: `DSR ${e.deflatedSharpeRatio} ${dsrOk ? ">=" : "<"} ${i.policy.minDeflatedSharpe}; PBO ${e.probabilityOfBacktestOverfitting} ${pboOk ? "<=" : ">"} ${i.policy.maxProbabilityOfOverfitting}; N ${e.trialCount}`,
  };
}

/**
 * N, DSR and PBO recomputed from the TrialLedger, never taken from the request: N is the number
 * of backtests of the bot (every sweep combination counts), the selected trial is the latest
 * backtest of the artifact's version with its own parameters (a sweep's trials ran others), and
 * PBO runs CSCV over the matrix of the trials on the same bars as the selected one (same data
 * source, same number of daily returns): a sweep over those bars is that matrix.
 */
function trialLedgerGate(i: GateInput): GateOutcomeRow {
  const fail = (detail: string): GateOutcomeRow => ({
    name: "trial_ledger",
    passed: false,
    detail,
  });
  const trials = i.ledger ?? [];
  if (!i.artifact) return allocationLedgerGate(i.allocationLedger ?? []);
  const ofVersion = trials.filter((t) => t.specHash === i.artifact!.versionHash);
  const selected = ofVersion.findLast((t) => !t.sweepId);
  if (!selected)
    return fail(
      ofVersion.length > 0
        ? `the TrialLedger has only sweep runs of version ${i.artifact.version} (other parameters than its own); backtest the version itself`
        : `the TrialLedger has no backtest of version ${i.artifact.version}; run one first`,
    );
  const minimum = Math.max(2, i.policy.minTrials);
  if (trials.length < minimum)
    return fail(
      `the TrialLedger has ${trials.length} trials of this bot; the gate needs at least ${minimum}`,
    );
  let dsr: number;
  let pbo: number | undefined;
  let matrix = 0;
  try {
    dsr = deflatedSharpeFromTrials(
      selected.dailyReturns,
      trials.map((t) => t.dailyReturns),
    ).dsr;
    const aligned = trials
      .filter(
        (t) =>
          t.dailyReturns.length === selected.dailyReturns.length &&
          (t.dataSource ?? "") === (selected.dataSource ?? ""),
      )
      .map((t) => t.dailyReturns);
    matrix = aligned.length;
    const t = selected.dailyReturns.length;
    const blocks = Math.min(16, Math.floor(t / 2 / 2) * 2);
    if (aligned.length >= 2 && blocks >= 2)
      pbo = probabilityOfBacktestOverfitting(aligned, blocks).pbo;
  } catch (err) {
    return fail(`cannot compute the evidence from the ledger: ${(err as Error).message}`);
  }
  const dsrOk = dsr >= i.policy.minDeflatedSharpe;
  const pboOk = pbo === undefined || pbo <= i.policy.maxProbabilityOfOverfitting;
  const round = (x: number) => Math.round(x * 10_000) / 10_000;
  return {
    name: "trial_ledger",
    passed: dsrOk && pboOk && pbo !== undefined,
    detail: `N ${trials.length} (from the ledger); DSR ${round(dsr)} ${dsrOk ? ">=" : "<"} ${i.policy.minDeflatedSharpe}; ${pbo === undefined ? "PBO needs at least 2 trials on the same data" : `PBO ${round(pbo)} ${pboOk ? "<=" : ">"} ${i.policy.maxProbabilityOfOverfitting} (CSCV over ${matrix} trials on ${selected.dataSource || "the same bars"})`}`,
  };
}

/**
 * The ledger gate of an allocation: capital goes only to strategies that were tested. Every
 * target (a bot slug, or a fleet name) must name at least one bot the live plane knows, and every
 * bot it funds must have at least one backtest in the TrialLedger. DSR and PBO judge the choice
 * of one strategy among trials, not a split of capital, so they are not recomputed here.
 */
function allocationLedgerGate(targets: NonNullable<GateInput["allocationLedger"]>): GateOutcomeRow {
  const problems: string[] = [];
  if (targets.length === 0) problems.push("the allocation names no target");
  for (const t of targets) {
    if (t.bots.length === 0)
      problems.push(`${t.target} names no bot or fleet the live plane knows`);
    for (const b of t.bots)
      if (b.trials === 0)
        problems.push(`bot ${b.slug} (${t.target}) has no backtest in the TrialLedger`);
  }
  const funded = targets.flatMap((t) => t.bots.map((b) => `${b.slug} N ${b.trials}`));
  return {
    name: "trial_ledger",
    passed: problems.length === 0,
    detail:
      problems.length > 0
        ? problems.join("; ")
        : `every funded bot has backtests in the ledger: ${funded.join(", ")}`,
  };
}
