import type { ColumnType } from "kysely";

/** The compliance service's schema name. */
export const COMPLIANCE_SCHEMA = "compliance";

type Json<T> = ColumnType<T, string, never>;

/** The compliance schema, as its migrations build it. */
export interface ComplianceDatabase {
  control_changes: {
    id: string;
    /** risk_limits, control_code or kill_switch_settings. */
    kind: string;
    bot_id: string | null;
    bot_slug: string | null;
    fleet: string | null;
    version: number | null;
    previous_version: number | null;
    actor: string;
    changed_at: Date;
    before: Json<Record<string, unknown>>;
    after: Json<Record<string, unknown>>;
  };
  /** Append-only: the database refuses UPDATE, and DELETE before retain_until. */
  signed_reports: {
    id: string;
    scope: "bot" | "platform";
    bot_id: string | null;
    bot_slug: string | null;
    year: number;
    /** The YAML exactly as signed, served byte for byte. */
    report: string;
    sha256: string;
    unsigned_sha256: string;
    signatures: Json<StoredSignature[]>;
    /** The slots signed, sorted and comma-joined (the unique index's key). */
    slots: string;
    control_changes: Json<string[]>;
    signed_at: Date;
    retain_until: Date;
  };
}

export interface StoredSignature {
  slot: string;
  role: string;
  signed_by: string;
  signed_at: string;
  statement: string;
}
