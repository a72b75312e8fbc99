/**
 * The validation report as plain data, in the words (snake_case) it is written in: the domain
 * judges these and the YAML writer writes them as they are, so what is judged is what is signed.
 */
export type Verdict = "pass" | "fail" | "not_evidenced";

export type JsonValue = string | number | boolean | null | JsonValue[] | { [k: string]: JsonValue };

export interface RiskLimitsEntry {
  max_order_notional: number;
  max_order_units: number;
  capital_limit: number;
  credit_limit: number;
  price_collar_pct: number;
  max_orders_per_window: number;
  throttle_window_s: number;
  duplicate_window_s: number;
  duplicate_tolerance_pct: number;
  restricted_symbols: string[];
}

export interface InventoryEntry {
  id: string;
  slug: string;
  name: string;
  kind: string;
  fleet: string;
  created_at: string;
  current_version: number;
  spec_hash: string;
  risk_limits: RiskLimitsEntry;
}

export interface CaseEntry {
  name: string;
  article: string;
  expected: string;
  observed: string;
  passed: boolean;
  evidence: { [k: string]: JsonValue };
}

export interface RunEntry {
  id: string;
  bot_id: string;
  bot_slug: string;
  article: string;
  status: string;
  version: number;
  version_hash: string;
  passed: boolean;
  error: string;
  requested_by: string;
  created_at: string;
  started_at: string | null;
  finished_at: string | null;
}

export interface ConformanceEntry extends RunEntry {
  cases: CaseEntry[];
}

export interface StressEntry extends RunEntry {
  stress: {
    peak_source: string;
    peak_messages_per_second: number;
    peak_volume: number;
    peak_multiple: number;
    demanded_messages_per_second: number;
    replayed_peak_volume: number;
    orders_sent: number;
    orders_accepted: number;
    orders_rejected: number;
    orders_lost: number;
    controls_held: boolean;
    control_violations: string[];
    rejections_by_control: { [k: string]: JsonValue };
    throttle_expected: boolean;
    throttle_fired: boolean;
    latency: { p50_us: number; p99_us: number; max_us: number };
    capacity_messages_per_second: number;
    headroom: number;
    /** "strategy": the bot's own strategy replayed; "" for a run made before it was. */
    replay: string;
    achieved_messages_per_second: number;
    demanded_rate_reached: boolean;
    time_compression: number;
    laps: number;
    bars_replayed: number;
    max_volume_participation: number;
    fills_volume_limited: number;
    orders_cancelled_for_volume: number;
  } | null;
}

export interface DrillBotEntry {
  bot_id: string;
  bot_slug: string;
  task_id: string;
  high_frequency: boolean;
  high_frequency_basis: string;
  draining_bound_ms: number;
  stopped_bound_ms: number;
  draining_ms: number | null;
  stopped_ms: number | null;
  restarted: boolean;
  verdict: string | null;
  misses: Array<{ bound: string; bound_ms: number; observed_ms: number | null; message: string }>;
}

export interface DrillEntry {
  id: string;
  started_at: string;
  ended_at: string | null;
  state: string;
  verdict: string | null;
  bots: number;
  reason: string;
  started_by: string;
  note: string;
  per_bot: DrillBotEntry[];
}

export interface BotVerdict {
  bot: string;
  verdict: Verdict;
  basis: string;
  evidence: string[];
}

export interface ArticleResult {
  article: string;
  title: string;
  verdict: Verdict;
  basis: string;
  /** References into `evidence` (section/id[/cases/name]) the verdict rests on. */
  evidence: string[];
  /** Attestation slots that must be signed before this article can be evidenced. */
  attestations_required: AttestationSlot[];
  /** Platform scope only: the verdict of each bot. */
  per_bot?: BotVerdict[];
}

export const RTS6_ARTICLES = [
  "article_6",
  "article_9",
  "article_10",
  "article_12",
  "article_15",
  "article_16",
  "article_17",
] as const;
export type Rts6Key = (typeof RTS6_ARTICLES)[number];

export const SEC_PROVISIONS = ["c_1_i", "c_1_ii", "d", "e"] as const;
export type SecKey = (typeof SEC_PROVISIONS)[number];

export type AttestationSlot = "risk_management_function" | "internal_audit" | "ceo_certification";

export interface Attestation {
  required_by: string;
  filled_by: string;
  /** Null in a generated report; a signed copy names who signed, when, and what they attest. */
  signed_by: string | null;
  signed_at: string | null;
  statement: string | null;
}

export const ATTESTATION_SLOTS: readonly AttestationSlot[] = [
  "risk_management_function",
  "internal_audit",
  "ceo_certification",
];

/** A material control change the report covers (RTS 6 Art. 9: "after any material control change"). */
export interface ControlChangeEntry {
  id: string;
  kind: "risk_limits" | "control_code" | "kill_switch_settings";
  bot_id: string | null;
  bot_slug: string | null;
  fleet: string | null;
  version: number | null;
  previous_version: number | null;
  actor: string;
  changed_at: string;
  before: { [k: string]: JsonValue };
  after: { [k: string]: JsonValue };
}

export interface Scope {
  kind: "bot" | "platform";
  /** The bot's slug; null for the platform. */
  bot: string | null;
  bots: number;
  year: number;
  period_start: string;
  period_end: string;
  schema_version: 1;
}

export interface ValidationReport {
  mifid_ii_rts_6: Record<Rts6Key, ArticleResult>;
  sec_rule_15c3_5: Record<SecKey, ArticleResult>;
  evidence: {
    scope: Scope;
    bot_inventory: InventoryEntry[];
    conformance_results: ConformanceEntry[];
    stress_results: StressEntry[];
    kill_switch_drills: DrillEntry[];
    control_changes: ControlChangeEntry[];
  };
  attestations: Record<AttestationSlot, Attestation>;
}

/** What one bot's verdicts rest on: its inventory entry and its records of the year. */
export interface BotEvidence {
  bot: InventoryEntry;
  conformance: ConformanceEntry[];
  stress: StressEntry[];
  drills: DrillEntry[];
}
