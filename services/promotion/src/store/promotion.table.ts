import type { ColumnType, Selectable } from "kysely";

type Timestamp = ColumnType<Date, Date | string | undefined, Date | string>;
type Json<T> = ColumnType<T, string, string>;

export type PromotionStatusName =
  "pending" | "approved" | "promoted" | "rejected" | "denied" | "revoked" | "expired";

export interface GateOutcomeRow {
  name: string;
  passed: boolean;
  detail: string;
}

/** The promotion schema. `body` keeps the submitted request in proto JSON. */
export interface PromotionDatabase {
  promotion_requests: {
    request_id: string;
    kind: string;
    status: PromotionStatusName;
    body: Json<Record<string, unknown>>;
    gates: Json<GateOutcomeRow[]>;
    requested_by: string;
    submitter_sub: string;
    /** The internal user the token named for the submitter (null when it named none). */
    submitter_internal_user_id: ColumnType<string | null, string | null | undefined, string | null>;
    requires_human_approval: boolean;
    bot_id: string | null;
    version: number | null;
    version_hash: string | null;
    /** The strategy code digest of the version gated; null for a built-in family. */
    strategy_digest: ColumnType<string | null, string | null | undefined, string | null>;
    /** The version's models gated (JSON of name to digest, names sorted); null for none. */
    model_digests: ColumnType<string | null, string | null | undefined, string | null>;
    expires_at: ColumnType<Date | null, Date | string | null, Date | string | null>;
    created_at: Timestamp;
    updated_at: Timestamp;
    /** The ApprovedPromotion token, signed once at approval; null before approval. */
    approved_promotion_token: ColumnType<string | null, string | null | undefined, string | null>;
  };
  promotion_decisions: {
    id: ColumnType<string, never, never>;
    request_id: string;
    actor: string;
    action: string;
    note: string;
    acr: string;
    amr: Json<string[]>;
    auth_time: ColumnType<Date | null, Date | string | null, never>;
    at: Timestamp;
  };
  trials: {
    trial_id: string;
    bot_id: string;
    version: number;
    spec_hash: string;
    strategy_family: string;
    /** null until a gate first needed them (read from the bots service, then kept). */
    daily_returns: ColumnType<number[] | null, string | null, string>;
    recorded_at: Timestamp;
    /** csv:<data set> or synthetic:<seed>; '' for a trial projected before it was kept. */
    data_source: ColumnType<string, string | undefined, never>;
    /** The sweep the trial was a combination of; '' for a backtest of the version as it is. */
    sweep_id: ColumnType<string, string | undefined, never>;
  };
  known_bot_versions: {
    bot_id: string;
    version: number;
    slug: string;
    fleet: string;
    spec_hash: string;
    /** "sha256:..." of the version's strategy code; null for a built-in family. */
    strategy_digest: ColumnType<string | null, string | null | undefined, string | null>;
    /** The version's ONNX models (JSON of name to digest, names sorted); null when it runs none. */
    model_digests: ColumnType<string | null, string | null | undefined, string | null>;
  };
}

export type RequestRow = Selectable<PromotionDatabase["promotion_requests"]>;
export type DecisionRow = Selectable<PromotionDatabase["promotion_decisions"]>;
/** A bot version as announced; one announced before strategy code existed names no digest. */
export type KnownVersionRow = Omit<
  Selectable<PromotionDatabase["known_bot_versions"]>,
  "strategy_digest" | "model_digests"
> & { strategy_digest?: string | null; model_digests?: string | null };
