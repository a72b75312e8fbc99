import { createRequire as __svcCreateRequire } from "node:module"; const require = __svcCreateRequire(import.meta.url);
import {
  outboxMigration,
  processedEventsMigration,
  sql
} from "./chunk-465YIRRN.js";
import {
  __export
} from "./chunk-VRQZRDEA.js";

// services/bots/migrations/2026-11-22T1500-bots-and-versions.ts
var T1500_bots_and_versions_exports = {};
__export(T1500_bots_and_versions_exports, {
  up: () => up
});
async function up(db) {
  await db.schema.createTable("bots").addColumn("id", "uuid", (c) => c.primaryKey()).addColumn("slug", "text", (c) => c.notNull().unique()).addColumn("name", "text", (c) => c.notNull()).addColumn("kind", "text", (c) => c.notNull()).addColumn("status", "text", (c) => c.notNull()).addColumn("fleet", "text").addColumn("current_version", "integer", (c) => c.notNull()).addColumn("spec_hash", "text", (c) => c.notNull()).addColumn("spec", "jsonb", (c) => c.notNull()).addColumn("created_by", "text", (c) => c.notNull()).addColumn("created_at", "timestamptz", (c) => c.notNull().defaultTo(sql`now()`)).addColumn("updated_at", "timestamptz", (c) => c.notNull().defaultTo(sql`now()`)).addCheckConstraint("bots_status_check", sql`status in ('draft', 'active', 'archived')`).addCheckConstraint("bots_kind_check", sql`kind in ('trading', 'research')`).execute();
  await db.schema.createIndex("bots_fleet_idx").on("bots").column("fleet").execute();
  await db.schema.createTable("bot_versions").addColumn("bot_id", "uuid", (c) => c.notNull().references("bots.id").onDelete("cascade")).addColumn("version", "integer", (c) => c.notNull()).addColumn("spec_hash", "text", (c) => c.notNull()).addColumn("spec", "jsonb", (c) => c.notNull()).addColumn("created_by", "text", (c) => c.notNull()).addColumn("created_at", "timestamptz", (c) => c.notNull().defaultTo(sql`now()`)).addPrimaryKeyConstraint("bot_versions_pk", ["bot_id", "version"]).execute();
}

// services/bots/migrations/2026-11-22T1610-live-artifacts.ts
var T1610_live_artifacts_exports = {};
__export(T1610_live_artifacts_exports, {
  up: () => up2
});
async function up2(db) {
  await db.schema.createTable("live_artifacts").addColumn("request_id", "text", (c) => c.primaryKey()).addColumn("bot_id", "text", (c) => c.notNull()).addColumn("version", "integer", (c) => c.notNull()).addColumn("version_hash", "text", (c) => c.notNull()).addColumn("live_eligible", "boolean", (c) => c.notNull()).addColumn("activated_at", "timestamptz", (c) => c.notNull().defaultTo(sql`now()`)).addColumn("revoked_at", "timestamptz").execute();
}

// services/bots/migrations/2026-11-22T1620-deployments-and-trials.ts
var T1620_deployments_and_trials_exports = {};
__export(T1620_deployments_and_trials_exports, {
  up: () => up3
});
async function up3(db) {
  await db.schema.createTable("bot_deployments").addColumn("id", "uuid", (c) => c.primaryKey()).addColumn("bot_id", "uuid", (c) => c.notNull().references("bots.id").onDelete("cascade")).addColumn("version", "integer", (c) => c.notNull()).addColumn("target", "text", (c) => c.notNull()).addColumn("status", "text", (c) => c.notNull()).addColumn("task_id", "text", (c) => c.notNull().unique()).addColumn("request", "jsonb", (c) => c.notNull()).addColumn("result_summary", "jsonb").addColumn("error", "text").addColumn("created_at", "timestamptz", (c) => c.notNull().defaultTo(sql`now()`)).addColumn("updated_at", "timestamptz", (c) => c.notNull().defaultTo(sql`now()`)).addCheckConstraint("bot_deployments_target_check", sql`target in ('backtest', 'paper', 'k8s')`).addCheckConstraint(
    "bot_deployments_status_check",
    sql`status in ('pending', 'running', 'success', 'failed', 'halted')`
  ).execute();
  await db.schema.createIndex("bot_deployments_bot_idx").on("bot_deployments").columns(["bot_id", "created_at"]).execute();
  await db.schema.createTable("trial_ledger").addColumn("trial_id", "uuid", (c) => c.primaryKey()).addColumn("bot_id", "uuid", (c) => c.notNull()).addColumn("version", "integer", (c) => c.notNull()).addColumn("spec_hash", "text", (c) => c.notNull()).addColumn("strategy_family", "text", (c) => c.notNull()).addColumn("parameters", "jsonb", (c) => c.notNull()).addColumn("data_source", "text", (c) => c.notNull()).addColumn("daily_returns", "jsonb", (c) => c.notNull()).addColumn("sharpe", "double precision", (c) => c.notNull()).addColumn("recorded_at", "timestamptz", (c) => c.notNull().defaultTo(sql`now()`)).execute();
}

// services/bots/migrations/2026-11-22T1640-bot-events.ts
var T1640_bot_events_exports = {};
__export(T1640_bot_events_exports, {
  up: () => up4
});
async function up4(db) {
  await db.schema.createTable("bot_events").addColumn("bot_id", "uuid", (c) => c.notNull()).addColumn("seq", "bigint", (c) => c.notNull()).addColumn("task_id", "text", (c) => c.notNull()).addColumn("type", "text", (c) => c.notNull()).addColumn("occurred_at", "timestamptz", (c) => c.notNull().defaultTo(sql`now()`)).addColumn("data", "jsonb", (c) => c.notNull()).addPrimaryKeyConstraint("bot_events_pk", ["bot_id", "seq"]).execute();
  await db.schema.createIndex("bot_events_task_idx").on("bot_events").columns(["task_id", "seq"]).execute();
  await db.schema.createTable("bot_checkpoints").addColumn("bot_id", "uuid", (c) => c.notNull()).addColumn("seq", "bigint", (c) => c.notNull()).addColumn("state", "jsonb", (c) => c.notNull()).addPrimaryKeyConstraint("bot_checkpoints_pk", ["bot_id", "seq"]).execute();
}

// services/bots/migrations/2026-11-22T1730-session-hosts.ts
var T1730_session_hosts_exports = {};
__export(T1730_session_hosts_exports, {
  up: () => up5
});
async function up5(db) {
  await db.schema.alterTable("bot_deployments").addColumn("host", "text").execute();
  await db.schema.alterTable("bot_deployments").addColumn("host_seen_at", "timestamptz").execute();
}

// services/bots/migrations/2026-11-23T0900-backtest-attempts.ts
var T0900_backtest_attempts_exports = {};
__export(T0900_backtest_attempts_exports, {
  up: () => up6
});
async function up6(db) {
  await db.schema.alterTable("bot_deployments").addColumn("attempts", "integer", (c) => c.notNull().defaultTo(0)).execute();
  await db.schema.createIndex("bot_deployments_live_idx").on("bot_deployments").columns(["target", "status"]).where(sql.ref("status"), "in", ["pending", "running"]).execute();
}

// services/bots/migrations/2026-11-23T0930-lease-epoch.ts
var T0930_lease_epoch_exports = {};
__export(T0930_lease_epoch_exports, {
  up: () => up7
});
async function up7(db) {
  await db.schema.alterTable("bot_deployments").addColumn("lease_epoch", "bigint", (c) => c.notNull().defaultTo(0)).execute();
}

// services/bots/migrations/2026-11-23T1000-allocations.ts
var T1000_allocations_exports = {};
__export(T1000_allocations_exports, {
  up: () => up8
});
async function up8(db) {
  await db.schema.createTable("allocations").addColumn("request_id", "text", (c) => c.notNull()).addColumn("target", "text", (c) => c.notNull()).addColumn("capital", "double precision", (c) => c.notNull()).addColumn("limits", "jsonb", (c) => c.notNull()).addColumn("active", "boolean", (c) => c.notNull()).addColumn("applied_at", "timestamptz", (c) => c.notNull().defaultTo(sql`now()`)).addColumn("revoked_at", "timestamptz").addPrimaryKeyConstraint("allocations_pk", ["request_id", "target"]).execute();
}

// services/bots/migrations/2026-11-23T1300-parked-sessions.ts
var T1300_parked_sessions_exports = {};
__export(T1300_parked_sessions_exports, {
  up: () => up9
});
async function up9(db) {
  await db.schema.alterTable("bot_deployments").dropConstraint("bot_deployments_status_check").execute();
  await db.updateTable("bot_deployments").set({ status: "parked", error: null }).where("target", "=", "paper").where("status", "=", "halted").where("error", "=", "kill switch").execute();
  await db.schema.alterTable("bot_deployments").addCheckConstraint(
    "bot_deployments_status_check",
    sql`status in ('pending', 'running', 'parked', 'success', 'failed', 'halted')`
  ).execute();
}

// services/bots/migrations/2026-11-25T1000-risk-controls.ts
var T1000_risk_controls_exports = {};
__export(T1000_risk_controls_exports, {
  up: () => up10
});
async function up10(db) {
  await db.schema.createTable("bot_risk_state").addColumn("bot_id", "uuid", (c) => c.primaryKey().references("bots.id").onDelete("cascade")).addColumn("disabled", "boolean", (c) => c.notNull()).addColumn("control", "text", (c) => c.notNull()).addColumn("reason", "text", (c) => c.notNull()).addColumn("limit_value", "double precision", (c) => c.notNull()).addColumn("observed_value", "double precision", (c) => c.notNull()).addColumn("task_id", "text", (c) => c.notNull()).addColumn("disabled_at", "timestamptz", (c) => c.notNull()).addColumn("re_enabled_by", "text").addColumn("re_enabled_at", "timestamptz").addColumn("re_enable_reason", "text").execute();
  await db.schema.createTable("fleet_risk_limits").addColumn("fleet", "text", (c) => c.primaryKey()).addColumn("capital_limit", "double precision", (c) => c.notNull()).addColumn("credit_limit", "double precision", (c) => c.notNull()).addColumn("updated_by", "text", (c) => c.notNull()).addColumn("updated_at", "timestamptz", (c) => c.notNull().defaultTo(sql`now()`)).execute();
}

// services/bots/migrations/2026-11-25T1100-compliance-runs.ts
var T1100_compliance_runs_exports = {};
__export(T1100_compliance_runs_exports, {
  up: () => up11
});
async function up11(db) {
  await db.schema.createTable("compliance_runs").addColumn("id", "uuid", (c) => c.primaryKey()).addColumn("bot_id", "uuid", (c) => c.notNull().references("bots.id").onDelete("cascade")).addColumn("kind", "text", (c) => c.notNull()).addColumn("version", "integer", (c) => c.notNull()).addColumn("version_hash", "text", (c) => c.notNull()).addColumn("task_id", "text", (c) => c.notNull().unique()).addColumn("status", "text", (c) => c.notNull()).addColumn("passed", "boolean", (c) => c.notNull().defaultTo(false)).addColumn("peak_multiple", "double precision", (c) => c.notNull()).addColumn("cases", "jsonb", (c) => c.notNull().defaultTo(sql`'[]'::jsonb`)).addColumn("stress", "jsonb").addColumn("cases_done", "integer", (c) => c.notNull().defaultTo(0)).addColumn("cases_total", "integer", (c) => c.notNull()).addColumn("error", "text").addColumn("requested_by", "text", (c) => c.notNull()).addColumn("created_at", "timestamptz", (c) => c.notNull().defaultTo(sql`now()`)).addColumn("started_at", "timestamptz").addColumn("finished_at", "timestamptz").execute();
  await db.schema.createIndex("compliance_runs_bot_created").on("compliance_runs").columns(["bot_id", "created_at"]).execute();
}

// services/bots/migrations/2026-11-25T1200-compliance-runs-kept.ts
var T1200_compliance_runs_kept_exports = {};
__export(T1200_compliance_runs_kept_exports, {
  up: () => up12
});
async function up12(db) {
  await db.schema.alterTable("compliance_runs").dropConstraint("compliance_runs_bot_id_fkey").execute();
  await db.schema.alterTable("compliance_runs").addForeignKeyConstraint("compliance_runs_bot_id_fkey", ["bot_id"], "bots", ["id"]).onDelete("restrict").execute();
}

// services/bots/migrations/2026-11-25T1210-compliance-run-hosts.ts
var T1210_compliance_run_hosts_exports = {};
__export(T1210_compliance_run_hosts_exports, {
  up: () => up13
});
async function up13(db) {
  await db.schema.alterTable("compliance_runs").addColumn("host", "text").addColumn("host_seen_at", "timestamptz").execute();
}

// services/bots/migrations/2026-11-25T1400-backtest-results.ts
var T1400_backtest_results_exports = {};
__export(T1400_backtest_results_exports, {
  up: () => up14
});
async function up14(db) {
  await db.schema.createTable("backtest_results").addColumn(
    "deployment_id",
    "uuid",
    (c) => c.primaryKey().references("bot_deployments.id").onDelete("cascade")
  ).addColumn("equity", "jsonb", (c) => c.notNull()).addColumn("bars_per_point", "bigint", (c) => c.notNull()).addColumn("daily_returns", "jsonb", (c) => c.notNull()).addColumn("symbol", "text", (c) => c.notNull()).addColumn("trade_count", "integer", (c) => c.notNull()).execute();
  await db.schema.createTable("backtest_trades").addColumn(
    "deployment_id",
    "uuid",
    (c) => c.notNull().references("bot_deployments.id").onDelete("cascade")
  ).addColumn("number", "integer", (c) => c.notNull()).addColumn("side", "text", (c) => c.notNull()).addColumn("entry_time", "timestamptz", (c) => c.notNull()).addColumn("entry_price", "double precision", (c) => c.notNull()).addColumn("exit_time", "timestamptz", (c) => c.notNull()).addColumn("exit_price", "double precision", (c) => c.notNull()).addColumn("size", "double precision", (c) => c.notNull()).addColumn("pnl", "double precision", (c) => c.notNull()).addColumn("fees", "double precision", (c) => c.notNull()).addColumn("closed", "boolean", (c) => c.notNull()).addPrimaryKeyConstraint("backtest_trades_pk", ["deployment_id", "number"]).addCheckConstraint("backtest_trades_side_check", sql`side in ('long', 'short')`).execute();
  await db.schema.alterTable("bot_deployments").addColumn("bars_done", "bigint").addColumn("bars_total", "bigint").addColumn("started_at", "timestamptz").execute();
}

// services/bots/migrations/2026-11-25T1410-datasets.ts
var T1410_datasets_exports = {};
__export(T1410_datasets_exports, {
  up: () => up15
});
async function up15(db) {
  await db.schema.createTable("datasets").addColumn("id", "uuid", (c) => c.primaryKey()).addColumn("name", "text", (c) => c.notNull().unique()).addColumn("symbol", "text", (c) => c.notNull()).addColumn("timeframe", "text", (c) => c.notNull()).addColumn("first_bar_time", "timestamptz", (c) => c.notNull()).addColumn("last_bar_time", "timestamptz", (c) => c.notNull()).addColumn("bar_count", "bigint", (c) => c.notNull()).addColumn("size_bytes", "bigint", (c) => c.notNull()).addColumn("created_by", "text", (c) => c.notNull()).addColumn("created_at", "timestamptz", (c) => c.notNull().defaultTo(sql`now()`)).execute();
  await db.schema.createTable("dataset_chunks").addColumn(
    "dataset_id",
    "uuid",
    (c) => c.notNull().references("datasets.id").onDelete("cascade")
  ).addColumn("seq", "integer", (c) => c.notNull()).addColumn("bar_count", "integer", (c) => c.notNull()).addColumn("bars", "bytea", (c) => c.notNull()).addPrimaryKeyConstraint("dataset_chunks_pk", ["dataset_id", "seq"]).execute();
}

// services/bots/migrations/2026-11-25T1420-trades-truncated.ts
var T1420_trades_truncated_exports = {};
__export(T1420_trades_truncated_exports, {
  up: () => up16
});
async function up16(db) {
  await db.schema.alterTable("backtest_results").addColumn("trades_truncated", "boolean", (c) => c.notNull().defaultTo(false)).execute();
}

// services/bots/migrations/2026-11-25T1600-chat-conversations.ts
var T1600_chat_conversations_exports = {};
__export(T1600_chat_conversations_exports, {
  up: () => up17
});
async function up17(db) {
  await db.schema.createTable("chat_conversations").addColumn("id", "uuid", (c) => c.primaryKey()).addColumn("bot_id", "uuid", (c) => c.notNull().references("bots.id").onDelete("cascade")).addColumn("user_sub", "text", (c) => c.notNull()).addColumn("title", "text", (c) => c.notNull()).addColumn("tokens_used", "bigint", (c) => c.notNull().defaultTo(0)).addColumn("message_count", "integer", (c) => c.notNull().defaultTo(0)).addColumn("created_at", "timestamptz", (c) => c.notNull().defaultTo(sql`now()`)).addColumn("updated_at", "timestamptz", (c) => c.notNull().defaultTo(sql`now()`)).execute();
  await db.schema.createIndex("chat_conversations_by_owner").on("chat_conversations").columns(["bot_id", "user_sub", "updated_at", "id"]).execute();
  await db.schema.createTable("chat_messages").addColumn(
    "conversation_id",
    "uuid",
    (c) => c.notNull().references("chat_conversations.id").onDelete("cascade")
  ).addColumn("seq", "integer", (c) => c.notNull()).addColumn("role", "text", (c) => c.notNull()).addColumn("text", "text", (c) => c.notNull()).addColumn("tool", "text", (c) => c.notNull().defaultTo("")).addColumn("call_id", "text", (c) => c.notNull().defaultTo("")).addColumn("tool_calls", "jsonb", (c) => c.notNull().defaultTo(sql`'[]'::jsonb`)).addColumn("citations", "jsonb", (c) => c.notNull().defaultTo(sql`'[]'::jsonb`)).addColumn("created_at", "timestamptz", (c) => c.notNull().defaultTo(sql`now()`)).addPrimaryKeyConstraint("chat_messages_pk", ["conversation_id", "seq"]).execute();
}

// services/bots/migrations/2026-11-25T1505-list-paging-indexes.ts
var T1505_list_paging_indexes_exports = {};
__export(T1505_list_paging_indexes_exports, {
  up: () => up18
});
async function up18(db) {
  await db.schema.createIndex("bots_created_idx").on("bots").columns(["created_at", "id"]).execute();
  for (const filter of ["status", "kind", "fleet"])
    await db.schema.createIndex(`bots_${filter}_created_idx`).on("bots").columns([filter, "created_at", "id"]).execute();
  await db.schema.dropIndex("bots_fleet_idx").execute();
  const specFleet = sql`nullif(spec->>'fleet', '')`;
  await db.updateTable("bots").set({ fleet: specFleet }).where(sql`fleet is distinct from ${specFleet}`).execute();
  await db.schema.createIndex("bot_deployments_bot_created_idx").on("bot_deployments").columns(["bot_id", "created_at", "id"]).execute();
  await db.schema.dropIndex("bot_deployments_bot_idx").execute();
  await db.schema.createIndex("trial_ledger_bot_recorded_idx").on("trial_ledger").columns(["bot_id", "recorded_at", "trial_id"]).execute();
  await db.schema.createIndex("compliance_runs_bot_created_id").on("compliance_runs").columns(["bot_id", "created_at", "id"]).execute();
  await db.schema.dropIndex("compliance_runs_bot_created").execute();
  await db.schema.createIndex("bot_events_phase_idx").on("bot_events").columns(["bot_id", "seq"]).where(sql.ref("type"), "in", ["session_started", "phase_changed"]).execute();
}

// services/bots/migrations/2026-11-26T1200-chat-answer-holds.ts
var T1200_chat_answer_holds_exports = {};
__export(T1200_chat_answer_holds_exports, {
  up: () => up19
});
async function up19(db) {
  await db.schema.alterTable("chat_conversations").addColumn("answer_id", "uuid").addColumn("answer_until", "timestamptz").execute();
}

// services/bots/migrations/2026-11-26T1530-running-paper-index.ts
var T1530_running_paper_index_exports = {};
__export(T1530_running_paper_index_exports, {
  up: () => up20
});
async function up20(db) {
  await db.schema.createIndex("bot_deployments_running_paper_idx").on("bot_deployments").columns(["bot_id", "task_id"]).where(sql.ref("target"), "=", "paper").where(sql.ref("status"), "=", "running").execute();
}

// services/bots/migrations/2026-11-27T2100-backtest-queue-index.ts
var T2100_backtest_queue_index_exports = {};
__export(T2100_backtest_queue_index_exports, {
  up: () => up21
});
async function up21(db) {
  await db.schema.createIndex("bot_deployments_backtest_queue_idx").on("bot_deployments").columns(["created_at", "id"]).where(sql.ref("target"), "=", "backtest").where(sql.ref("status"), "=", "pending").where(sql.ref("host"), "is", null).execute();
}

// services/bots/migrations/index.ts
var migrations = {
  "2026-11-22T1459-outbox": outboxMigration,
  "2026-11-22T1459-processed-events": processedEventsMigration,
  "2026-11-22T1500-bots-and-versions": T1500_bots_and_versions_exports,
  "2026-11-22T1610-live-artifacts": T1610_live_artifacts_exports,
  "2026-11-22T1620-deployments-and-trials": T1620_deployments_and_trials_exports,
  "2026-11-22T1640-bot-events": T1640_bot_events_exports,
  "2026-11-22T1730-session-hosts": T1730_session_hosts_exports,
  "2026-11-23T0900-backtest-attempts": T0900_backtest_attempts_exports,
  "2026-11-23T0930-lease-epoch": T0930_lease_epoch_exports,
  "2026-11-23T1000-allocations": T1000_allocations_exports,
  "2026-11-23T1300-parked-sessions": T1300_parked_sessions_exports,
  "2026-11-25T1000-risk-controls": T1000_risk_controls_exports,
  "2026-11-25T1100-compliance-runs": T1100_compliance_runs_exports,
  "2026-11-25T1200-compliance-runs-kept": T1200_compliance_runs_kept_exports,
  "2026-11-25T1210-compliance-run-hosts": T1210_compliance_run_hosts_exports,
  "2026-11-25T1400-backtest-results": T1400_backtest_results_exports,
  "2026-11-25T1410-datasets": T1410_datasets_exports,
  "2026-11-25T1420-trades-truncated": T1420_trades_truncated_exports,
  "2026-11-25T1505-list-paging-indexes": T1505_list_paging_indexes_exports,
  "2026-11-25T1600-chat-conversations": T1600_chat_conversations_exports,
  "2026-11-26T1200-chat-answer-holds": T1200_chat_answer_holds_exports,
  "2026-11-26T1530-running-paper-index": T1530_running_paper_index_exports,
  "2026-11-27T2100-backtest-queue-index": T2100_backtest_queue_index_exports
};

// services/identity/migrations/2026-11-23T1200-license-registry.ts
var T1200_license_registry_exports = {};
__export(T1200_license_registry_exports, {
  up: () => up22
});
async function up22(db) {
  await db.schema.createTable("license_deployments").addColumn("deployment_id", "text", (c) => c.primaryKey()).addColumn("customer_id", "text").addColumn("entitlements", "jsonb", (c) => c.notNull()).addColumn("ttl_seconds", "integer", (c) => c.notNull()).addColumn("grace_period_seconds", "integer", (c) => c.notNull()).addColumn("contract_ends_at", "timestamptz").addColumn("device_public_key", "text").addColumn("last_serial", "integer", (c) => c.notNull()).addColumn("revoked_at", "timestamptz").addColumn("revoked_by", "text").addColumn("revoke_reason", "text").addColumn("created_at", "timestamptz", (c) => c.notNull().defaultTo(sql`now()`)).addColumn("updated_at", "timestamptz", (c) => c.notNull().defaultTo(sql`now()`)).execute();
  await db.schema.createTable("license_leases").addColumn("lease_id", "text", (c) => c.primaryKey()).addColumn(
    "deployment_id",
    "text",
    (c) => c.notNull().references("license_deployments.deployment_id")
  ).addColumn("serial", "integer", (c) => c.notNull()).addColumn("public_key_id", "text", (c) => c.notNull()).addColumn("customer_id", "text").addColumn("entitlements", "jsonb", (c) => c.notNull()).addColumn("issued_at", "timestamptz", (c) => c.notNull()).addColumn("expires_at", "timestamptz", (c) => c.notNull()).addColumn("grace_period_seconds", "integer", (c) => c.notNull()).addColumn("issued_by", "text", (c) => c.notNull()).addColumn("renewal_of", "text").addColumn("revoked_at", "timestamptz").addColumn("revoked_by", "text").addColumn("revoke_reason", "text").addUniqueConstraint("license_leases_serial_uq", ["deployment_id", "serial"]).execute();
  await db.schema.createIndex("license_leases_key_idx").on("license_leases").columns(["public_key_id", "expires_at"]).execute();
  await db.schema.createTable("license_renewal_nonces").addColumn("deployment_id", "text", (c) => c.notNull()).addColumn("nonce", "text", (c) => c.notNull()).addColumn("seen_at", "timestamptz", (c) => c.notNull().defaultTo(sql`now()`)).addPrimaryKeyConstraint("license_renewal_nonces_pk", ["deployment_id", "nonce"]).execute();
  await db.schema.createTable("audit_events").addColumn("id", "bigserial", (c) => c.primaryKey()).addColumn("created_at", "timestamptz", (c) => c.notNull().defaultTo(sql`now()`)).addColumn("event_type", "text", (c) => c.notNull()).addColumn("actor_sub", "text", (c) => c.notNull()).addColumn("actor_type", "text", (c) => c.notNull()).addColumn("target", "text", (c) => c.notNull()).addColumn("details", "jsonb", (c) => c.notNull()).execute();
}

// services/identity/migrations/2026-11-24T0400-security-audit-events.ts
var T0400_security_audit_events_exports = {};
__export(T0400_security_audit_events_exports, {
  up: () => up23
});
async function up23(db) {
  await db.schema.createTable("security_audit_events").addColumn("seq", "bigint", (c) => c.primaryKey()).addColumn("id", "text", (c) => c.notNull().unique()).addColumn("occurred_at", "timestamptz", (c) => c.notNull()).addColumn("service", "text", (c) => c.notNull()).addColumn("action", "text", (c) => c.notNull()).addColumn("outcome", "text", (c) => c.notNull()).addColumn("resource", "text", (c) => c.notNull()).addColumn("actor_subject", "text", (c) => c.notNull()).addColumn("actor_type", "text", (c) => c.notNull()).addColumn("internal_user_id", "text", (c) => c.notNull()).addColumn("agent_subject", "text", (c) => c.notNull()).addColumn("on_behalf_of", "text", (c) => c.notNull()).addColumn("request_id", "text", (c) => c.notNull()).addColumn("trace_id", "text", (c) => c.notNull()).addColumn("details", "text", (c) => c.notNull()).addColumn("prev_hash", "text", (c) => c.notNull()).addColumn("hash", "text", (c) => c.notNull()).addColumn("recorded_at", "timestamptz", (c) => c.notNull().defaultTo(sql`now()`)).execute();
  for (const column of ["action", "resource", "actor_subject", "occurred_at"])
    await db.schema.createIndex(`security_audit_events_${column}_idx`).on("security_audit_events").columns([column, "seq"]).execute();
}

// services/identity/migrations/2026-11-24T0500-tenancy.ts
var T0500_tenancy_exports = {};
__export(T0500_tenancy_exports, {
  up: () => up24
});
async function up24(db) {
  await db.schema.createTable("users").addColumn("id", "uuid", (c) => c.primaryKey()).addColumn("subject", "text", (c) => c.notNull().unique()).addColumn("email", "text", (c) => c.notNull()).addColumn("created_at", "timestamptz", (c) => c.notNull().defaultTo(sql`now()`)).addColumn("updated_at", "timestamptz", (c) => c.notNull().defaultTo(sql`now()`)).execute();
  await db.schema.createTable("orgs").addColumn("id", "uuid", (c) => c.primaryKey()).addColumn("external_id", "text", (c) => c.unique()).addColumn("name", "text", (c) => c.notNull()).addColumn("created_at", "timestamptz", (c) => c.notNull().defaultTo(sql`now()`)).execute();
  await db.schema.createTable("memberships").addColumn("user_id", "uuid", (c) => c.notNull().references("users.id").onDelete("cascade")).addColumn("org_id", "uuid", (c) => c.notNull().references("orgs.id").onDelete("cascade")).addColumn("scope_kind", "text", (c) => c.notNull()).addColumn("scope_id", "text", (c) => c.notNull()).addColumn("role", "text", (c) => c.notNull()).addColumn("source", "text", (c) => c.notNull()).addColumn("connection_kind", "text", (c) => c.notNull().defaultTo("")).addColumn("source_group", "text", (c) => c.notNull().defaultTo("")).addColumn("created_at", "timestamptz", (c) => c.notNull().defaultTo(sql`now()`)).addPrimaryKeyConstraint("memberships_pk", [
    "user_id",
    "org_id",
    "scope_kind",
    "scope_id",
    "role",
    "source",
    "connection_kind",
    "source_group"
  ]).execute();
  await db.schema.createTable("idp_connections").addColumn("id", "uuid", (c) => c.primaryKey()).addColumn("org_id", "uuid", (c) => c.notNull().references("orgs.id").onDelete("cascade")).addColumn("connection_kind", "text", (c) => c.notNull()).addColumn("name", "text", (c) => c.notNull()).addColumn("status", "text", (c) => c.notNull()).addColumn("created_at", "timestamptz", (c) => c.notNull().defaultTo(sql`now()`)).execute();
  await db.schema.createTable("idp_group_mappings").addColumn("id", "uuid", (c) => c.primaryKey()).addColumn("org_id", "uuid", (c) => c.notNull().references("orgs.id").onDelete("cascade")).addColumn("connection_kind", "text", (c) => c.notNull()).addColumn("external_group", "text", (c) => c.notNull()).addColumn("scope_kind", "text", (c) => c.notNull()).addColumn("scope_id", "text", (c) => c.notNull()).addColumn("role", "text", (c) => c.notNull()).addColumn("created_by", "text", (c) => c.notNull()).addColumn("created_at", "timestamptz", (c) => c.notNull().defaultTo(sql`now()`)).addUniqueConstraint("idp_group_mappings_unique", [
    "org_id",
    "connection_kind",
    "external_group",
    "scope_kind",
    "scope_id",
    "role"
  ]).execute();
}

// services/identity/migrations/2026-11-27T2100-audit-append-only.ts
var T2100_audit_append_only_exports = {};
__export(T2100_audit_append_only_exports, {
  up: () => up25
});
async function up25(db) {
  await sql`
    create function identity.security_audit_events_append_only() returns trigger
    language plpgsql as $$
    begin
      if coalesce(current_setting('svc.audit_maintenance', true), '') = 'on' then
        return coalesce(new, old);
      end if;
      raise exception 'security_audit_events is append-only: % refused', tg_op
        using errcode = 'insufficient_privilege',
              hint = 'set svc.audit_maintenance = on in the session only under the runbook of docs/audit.md';
    end
    $$`.execute(db);
  await sql`
    create trigger security_audit_events_no_rewrite
    before update or delete on identity.security_audit_events
    for each row execute function identity.security_audit_events_append_only()`.execute(db);
  await sql`
    create trigger security_audit_events_no_truncate
    before truncate on identity.security_audit_events
    for each statement execute function identity.security_audit_events_append_only()`.execute(db);
  await sql`revoke update, delete, truncate on identity.security_audit_events from public`.execute(
    db
  );
  await sql`revoke update, delete, truncate on identity.security_audit_events from current_user`.execute(
    db
  );
}

// services/identity/migrations/index.ts
var migrations2 = {
  "2026-11-23T1200-license-registry": T1200_license_registry_exports,
  "2026-11-24T0400-security-audit-events": T0400_security_audit_events_exports,
  "2026-11-24T0500-tenancy": T0500_tenancy_exports,
  "2026-11-27T2100-audit-append-only": T2100_audit_append_only_exports
};

// services/killswitch/migrations/2026-11-22T1700-kill-switches.ts
var T1700_kill_switches_exports = {};
__export(T1700_kill_switches_exports, {
  up: () => up26
});
async function up26(db) {
  await db.schema.createTable("kill_switches").addColumn("name", "text", (c) => c.primaryKey()).addColumn("scope", "text", (c) => c.notNull()).addColumn("target", "text", (c) => c.notNull()).addColumn("mode", "text", (c) => c.notNull()).addColumn("reason", "text", (c) => c.notNull()).addColumn("ttl", "text", (c) => c.notNull()).addColumn("engaged_by", "text", (c) => c.notNull()).addColumn("engaged_at", "timestamptz", (c) => c.notNull().defaultTo(sql`now()`)).addColumn("expires_at", "timestamptz").execute();
  await db.schema.createTable("known_bots").addColumn("bot_id", "text", (c) => c.primaryKey()).addColumn("slug", "text", (c) => c.notNull()).addColumn("fleet", "text", (c) => c.notNull()).execute();
  await db.schema.createTable("security_audit_events").addColumn("id", "bigserial", (c) => c.primaryKey()).addColumn("created_at", "timestamptz", (c) => c.notNull().defaultTo(sql`now()`)).addColumn("user_id", "text", (c) => c.notNull()).addColumn("actor_user_id", "text", (c) => c.notNull()).addColumn("event_type", "text", (c) => c.notNull()).addColumn("details", "jsonb", (c) => c.notNull()).execute();
}

// services/killswitch/migrations/2026-11-22T1710-drills.ts
var T1710_drills_exports = {};
__export(T1710_drills_exports, {
  up: () => up27
});
async function up27(db) {
  await db.schema.createTable("drills").addColumn("id", "uuid", (c) => c.primaryKey()).addColumn("started_at", "timestamptz", (c) => c.notNull().defaultTo(sql`now()`)).addColumn("started_by", "text", (c) => c.notNull()).addColumn("reason", "text", (c) => c.notNull()).addColumn("result", "jsonb", (c) => c.notNull()).execute();
}

// services/killswitch/migrations/2026-11-25T0900-drill-verdicts.ts
var T0900_drill_verdicts_exports = {};
__export(T0900_drill_verdicts_exports, {
  up: () => up28
});
async function up28(db) {
  await db.schema.alterTable("drills").addColumn("state", "text", (c) => c.notNull().defaultTo("finished")).addColumn("verdict", "text").addColumn("ended_at", "timestamptz").addColumn("switch_name", "text").addColumn("release_by", "timestamptz").execute();
  await db.schema.createIndex("drills_started_at").on("drills").column("started_at").execute();
  await db.schema.createIndex("drills_one_running").on("drills").column("state").unique().where(sql.ref("state"), "=", "running").execute();
}

// services/killswitch/migrations/2026-11-25T1505-list-paging-indexes.ts
var T1505_list_paging_indexes_exports2 = {};
__export(T1505_list_paging_indexes_exports2, {
  up: () => up29
});
async function up29(db) {
  await db.schema.createIndex("kill_switches_engaged_idx").on("kill_switches").columns(["engaged_at", "name"]).execute();
  await db.schema.createIndex("drills_started_id_idx").on("drills").columns(["started_at", "id"]).execute();
  await db.schema.dropIndex("drills_started_at").execute();
}

// services/killswitch/migrations/index.ts
var migrations3 = {
  "2026-11-22T1659-processed-events": processedEventsMigration,
  "2026-11-22T1700-kill-switches": T1700_kill_switches_exports,
  "2026-11-22T1710-drills": T1710_drills_exports,
  // Audit events leave through it to the identity service's chain.
  "2026-11-24T0400-outbox": outboxMigration,
  "2026-11-25T0900-drill-verdicts": T0900_drill_verdicts_exports,
  "2026-11-25T1505-list-paging-indexes": T1505_list_paging_indexes_exports2
};

// services/promotion/migrations/2026-11-22T1600-promotion-requests.ts
var T1600_promotion_requests_exports = {};
__export(T1600_promotion_requests_exports, {
  up: () => up30
});
async function up30(db) {
  await db.schema.createTable("promotion_requests").addColumn("request_id", "text", (c) => c.primaryKey()).addColumn("kind", "text", (c) => c.notNull()).addColumn("status", "text", (c) => c.notNull()).addColumn("body", "jsonb", (c) => c.notNull()).addColumn("gates", "jsonb", (c) => c.notNull()).addColumn("requested_by", "text", (c) => c.notNull()).addColumn("submitter_sub", "text", (c) => c.notNull()).addColumn("requires_human_approval", "boolean", (c) => c.notNull()).addColumn("bot_id", "text").addColumn("version", "integer").addColumn("version_hash", "text").addColumn("expires_at", "timestamptz").addColumn("created_at", "timestamptz", (c) => c.notNull().defaultTo(sql`now()`)).addColumn("updated_at", "timestamptz", (c) => c.notNull().defaultTo(sql`now()`)).addCheckConstraint(
    "promotion_status_check",
    sql`status in ('pending','approved','promoted','rejected','denied','revoked','expired')`
  ).execute();
  await db.schema.createIndex("promotion_requests_status_idx").on("promotion_requests").columns(["status", "created_at"]).execute();
  await db.schema.createTable("promotion_decisions").addColumn("id", "bigserial", (c) => c.primaryKey()).addColumn("request_id", "text", (c) => c.notNull().references("promotion_requests.request_id")).addColumn("actor", "text", (c) => c.notNull()).addColumn("action", "text", (c) => c.notNull()).addColumn("note", "text", (c) => c.notNull()).addColumn("acr", "text", (c) => c.notNull()).addColumn("amr", "jsonb", (c) => c.notNull()).addColumn("auth_time", "timestamptz").addColumn("at", "timestamptz", (c) => c.notNull().defaultTo(sql`now()`)).execute();
  await db.schema.createTable("known_bot_versions").addColumn("bot_id", "text", (c) => c.notNull()).addColumn("version", "integer", (c) => c.notNull()).addColumn("slug", "text", (c) => c.notNull()).addColumn("fleet", "text", (c) => c.notNull()).addColumn("spec_hash", "text", (c) => c.notNull()).addPrimaryKeyConstraint("known_bot_versions_pk", ["bot_id", "version"]).execute();
  await db.schema.createIndex("known_bot_versions_slug_idx").on("known_bot_versions").columns(["slug", "version"]).execute();
}

// services/promotion/migrations/2026-11-22T1630-trial-ledger-projection.ts
var T1630_trial_ledger_projection_exports = {};
__export(T1630_trial_ledger_projection_exports, {
  up: () => up31
});
async function up31(db) {
  await db.schema.createTable("trials").addColumn("trial_id", "text", (c) => c.primaryKey()).addColumn("bot_id", "text", (c) => c.notNull()).addColumn("version", "integer", (c) => c.notNull()).addColumn("spec_hash", "text", (c) => c.notNull()).addColumn("strategy_family", "text", (c) => c.notNull()).addColumn("daily_returns", "jsonb", (c) => c.notNull()).addColumn("recorded_at", "timestamptz", (c) => c.notNull().defaultTo(sql`now()`)).execute();
  await db.schema.createIndex("trials_bot_idx").on("trials").column("bot_id").execute();
}

// services/promotion/migrations/2026-11-23T1300-approved-promotion-token.ts
var T1300_approved_promotion_token_exports = {};
__export(T1300_approved_promotion_token_exports, {
  up: () => up32
});
async function up32(db) {
  await db.schema.alterTable("promotion_requests").addColumn("approved_promotion_token", "text").execute();
}

// services/promotion/migrations/2026-11-25T1505-list-paging-indexes.ts
var T1505_list_paging_indexes_exports3 = {};
__export(T1505_list_paging_indexes_exports3, {
  up: () => up33
});
async function up33(db) {
  await db.schema.createIndex("promotion_requests_created_idx").on("promotion_requests").columns(["created_at", "request_id"]).execute();
  await db.schema.createIndex("promotion_requests_status_created_idx").on("promotion_requests").columns(["status", "created_at", "request_id"]).execute();
  await db.schema.dropIndex("promotion_requests_status_idx").execute();
}

// services/promotion/migrations/2026-11-27T2100-submitter-internal-user.ts
var T2100_submitter_internal_user_exports = {};
__export(T2100_submitter_internal_user_exports, {
  up: () => up34
});
async function up34(db) {
  await db.schema.alterTable("promotion_requests").addColumn("submitter_internal_user_id", "text").execute();
}

// services/promotion/migrations/index.ts
var migrations4 = {
  "2026-11-22T1559-outbox": outboxMigration,
  "2026-11-22T1559-processed-events": processedEventsMigration,
  "2026-11-22T1600-promotion-requests": T1600_promotion_requests_exports,
  "2026-11-22T1630-trial-ledger-projection": T1630_trial_ledger_projection_exports,
  "2026-11-23T1300-approved-promotion-token": T1300_approved_promotion_token_exports,
  "2026-11-25T1505-list-paging-indexes": T1505_list_paging_indexes_exports3,
  "2026-11-27T2100-submitter-internal-user": T2100_submitter_internal_user_exports
};

export {
  migrations,
  migrations2,
  migrations3,
  migrations4
};
//# sourceMappingURL=chunk-QVSHEJEK.js.map
