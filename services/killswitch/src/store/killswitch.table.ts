import type { ColumnType, Selectable } from "kysely";
import type { KillSwitchModeName, KillSwitchScopeName } from "@svc/lib/contracts";

/** The killswitch service's schema name. */
export const KILLSWITCH_SCHEMA = "killswitch";

/**
 * The killswitch schema, as its migrations build it. Audit events leave through the outbox to the
 * identity service's chain (its old security_audit_events table was folded into it and dropped).
 */
export interface KillSwitchDatabase {
  kill_switches: KillSwitchTable;
  known_bots: { bot_id: string; slug: string; fleet: string };
  drills: {
    id: string;
    started_at: ColumnType<Date, Date | undefined, never>;
    started_by: string;
    reason: string;
    result: ColumnType<DrillFigures, string, string>;
    state: DrillStateName;
    verdict: DrillVerdictName | null;
    ended_at: Date | null;
    /** The drill's own switch on the platform key. */
    switch_name: string | null;
    /** When that switch lapses by its TTL: the release that holds even if this process dies. */
    release_by: Date | null;
  };
  drill_schedule: DrillScheduleTable;
  drill_quarters: {
    quarter: string;
    scheduled_drill_id: string | null;
    scheduled_at: Date | null;
    missed_at: Date | null;
  };
}

/** The platform's quarterly drill schedule (one row, scope "platform"). */
export interface DrillScheduleTable {
  scope: string;
  enabled: boolean;
  month_of_quarter: number;
  day_of_month: number;
  hour_utc: number;
  minute_utc: number;
  reason: string;
  set_by: string;
  set_at: Date | null;
  watch_since: ColumnType<Date, never, never>;
}
export type DrillScheduleRow = Selectable<DrillScheduleTable>;

/** running until judged; interrupted when the service stopped first (no verdict). */
export type DrillStateName = "running" | "finished" | "interrupted";
export type DrillVerdictName = "pass" | "fail" | "no_bots";

/** One bound a bot missed, with the time observed (null: not observed within the drill). */
export interface DrillMissFigures {
  bound: "draining" | "stopped";
  bound_ms: number;
  observed_ms: number | null;
  message: string;
}

/** One running paper session in a drill. Fields past restarted are absent on drills from before verdicts. */
export interface DrillBotFigures {
  task_id: string;
  /** null when the phase was not observed (older drills wrote 0 for a Draining not observed). */
  draining_ms: number | null;
  stopped_ms: number | null;
  restarted: boolean;
  bot_id?: string;
  bot_slug?: string;
  high_frequency?: boolean;
  high_frequency_basis?: string;
  draining_bound_ms?: number;
  stopped_bound_ms?: number;
  verdict?: "pass" | "fail";
  misses?: DrillMissFigures[];
}

/** What a drill measured and judged, kept as JSON beside it (the compliance report embeds it). */
export interface DrillFigures {
  bots: number;
  draining_p50_ms: number;
  draining_max_ms: number;
  stopped_max_ms: number;
  all_restarted: boolean;
  per_bot: DrillBotFigures[];
  /** Why the drill has its verdict or state, for a person. */
  note?: string;
}

export type DrillRow = Selectable<KillSwitchDatabase["drills"]>;

export interface KillSwitchTable {
  name: string;
  scope: KillSwitchScopeName;
  target: string;
  mode: KillSwitchModeName;
  reason: string;
  ttl: string;
  engaged_by: string;
  engaged_at: ColumnType<Date, never, Date>;
  expires_at: Date | null;
}

export type KillSwitchRow = {
  [K in keyof KillSwitchTable]: KillSwitchTable[K] extends ColumnType<infer S, unknown, unknown>
    ? S
    : KillSwitchTable[K];
};
