import type { ColumnType, Selectable } from "kysely";
import type { KillSwitchModeName, KillSwitchScopeName } from "@svc/lib/contracts";

/** The killswitch service's schema name. */
export const KILLSWITCH_SCHEMA = "killswitch";

/**
 * The killswitch schema, as its migrations build it. (Its old security_audit_events table is no
 * longer written: audit events leave through the outbox to the identity service's chain.)
 */
export interface KillSwitchDatabase {
  kill_switches: KillSwitchTable;
  known_bots: { bot_id: string; slug: string; fleet: string };
  drills: {
    id: string;
    started_at: ColumnType<Date, never, never>;
    started_by: string;
    reason: string;
    result: ColumnType<DrillFigures, string, string>;
  };
}

/** What a drill measured, kept as JSON beside it (the compliance report embeds it). */
export interface DrillFigures {
  bots: number;
  draining_p50_ms: number;
  draining_max_ms: number;
  stopped_max_ms: number;
  all_restarted: boolean;
  per_bot: Array<{
    task_id: string;
    draining_ms: number;
    stopped_ms: number | null;
    restarted: boolean;
  }>;
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
