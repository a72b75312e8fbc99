import type { ColumnType, Insertable, Selectable, Updateable } from "kysely";

type Timestamp = ColumnType<Date, Date | string | undefined, Date | string>;

/** The bots schema. Spec columns hold the proto JSON of a BotSpec (snake_case field names). */
export interface BotsDatabase {
  bots: BotsTable;
  bot_versions: BotVersionsTable;
}

export interface BotsTable {
  id: string;
  slug: string;
  name: string;
  kind: "trading" | "research";
  status: "draft" | "active" | "archived";
  fleet: string | null;
  current_version: number;
  spec_hash: string;
  spec: ColumnType<Record<string, unknown>, string, string>;
  created_by: string;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface BotVersionsTable {
  bot_id: string;
  version: number;
  spec_hash: string;
  spec: ColumnType<Record<string, unknown>, string, string>;
  created_by: string;
  created_at: Timestamp;
}

export type BotRow = Selectable<BotsTable>;
export type NewBotRow = Insertable<BotsTable>;
export type BotRowUpdate = Updateable<BotsTable>;
export type BotVersionRow = Selectable<BotVersionsTable>;
