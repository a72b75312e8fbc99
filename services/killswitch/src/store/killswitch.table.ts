import type { ColumnType, Generated } from "kysely";
import type { ModeName, ScopeName } from "../domain/kill-switch-keys.js";

/** The killswitch schema, as its migrations build it. */
export interface KillSwitchDatabase {
  kill_switches: KillSwitchTable;
  known_bots: { bot_id: string; slug: string; fleet: string };
  security_audit_events: {
    id: Generated<string>;
    created_at: ColumnType<Date, never, never>;
    user_id: string;
    actor_user_id: string;
    event_type: string;
    details: ColumnType<unknown, string, string>;
  };
  drills: {
    id: string;
    started_at: ColumnType<Date, never, never>;
    started_by: string;
    reason: string;
    result: ColumnType<unknown, string, string>;
  };
}

export interface KillSwitchTable {
  name: string;
  scope: ScopeName;
  target: string;
  mode: ModeName;
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
