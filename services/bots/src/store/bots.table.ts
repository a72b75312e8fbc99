import type { ColumnType, Insertable, Selectable, Updateable } from "kysely";
import type { DeploymentState } from "../domain/deployment-status.js";
import type { ChatConversationsTable, ChatMessagesTable } from "./chat.table.js";

type Timestamp = ColumnType<Date, Date | string | undefined, Date | string>;

/** The bots schema. Spec columns hold the proto JSON of a BotSpec (snake_case field names). */
export interface BotsDatabase {
  bots: BotsTable;
  bot_versions: BotVersionsTable;
  strategy_sources: StrategySourcesTable;
  strategy_bundles: StrategyBundlesTable;
  models: ModelsTable;
  bot_deployments: BotDeploymentsTable;
  session_strategy_state: SessionStrategyStateTable;
  trial_ledger: TrialLedgerTable;
  sweeps: SweepsTable;
  bot_events: BotEventsTable;
  bot_checkpoints: BotCheckpointsTable;
  live_artifacts: LiveArtifactsTable;
  allocations: AllocationsTable;
  bot_risk_state: BotRiskStateTable;
  fleet_risk_limits: FleetRiskLimitsTable;
  compliance_runs: ComplianceRunsTable;
  backtest_results: BacktestResultsTable;
  backtest_trades: BacktestTradesTable;
  datasets: DatasetsTable;
  dataset_chunks: DatasetChunksTable;
  chat_conversations: ChatConversationsTable;
  chat_messages: ChatMessagesTable;
  /** A fleet whose BYOC runtime an apply or destroy is changing now. */
  fleet_infrastructure_locks: {
    fleet: string;
    operation: string;
    holder: string;
    started_at: Timestamp;
  };
}

/** An uploaded OHLCV data set; its bars are in dataset_chunks. */
export interface DatasetsTable {
  id: string;
  name: string;
  symbol: string;
  timeframe: string;
  first_bar_time: ColumnType<Date, Date, Date>;
  last_bar_time: ColumnType<Date, Date, Date>;
  bar_count: ColumnType<string, number, number>;
  size_bytes: ColumnType<string, number, number>;
  created_by: string;
  created_at: ColumnType<Date, never, never>;
  symbols: ColumnType<string[], string[] | undefined, string[]>;
  gaps: ColumnType<string, number | undefined, number | string>;
  /** sha256 of the bars (see BarDigest); empty while a pull is writing or for older uploads. */
  digest: ColumnType<string, string | undefined, string>;
  origin: ColumnType<string, string | undefined, never>;
  format: ColumnType<string, string | undefined, never>;
}

/** One chunk of a symbol's bars: six float64 columns (time, open, high, low, close, volume). */
export interface DatasetChunksTable {
  dataset_id: string;
  symbol: string;
  seq: number;
  bar_count: number;
  bars: ColumnType<Buffer, Buffer, never>;
}

export type DatasetRow = Selectable<DatasetsTable>;

/** A finished backtest's curve (bounded) and daily returns; its trades are rows of their own. */
export interface BacktestResultsTable {
  deployment_id: string;
  /** [{time (epoch ms), equity, drawdown}] */
  equity: ColumnType<{ time: number; equity: number; drawdown: number }[], string, never>;
  bars_per_point: ColumnType<string, number, never>;
  /** [{date (YYYY-MM-DD), value}] */
  daily_returns: ColumnType<{ date: string; value: number }[], string, never>;
  symbol: string;
  trade_count: number;
  trades_truncated: ColumnType<boolean, boolean | undefined, never>;
  /** A code strategy's log lines, JSON text: [{time (epoch ms or null), level, message, fields?}]. */
  strategy_logs: ColumnType<string, string | undefined, never>;
  strategy_logs_dropped: ColumnType<string, number | undefined, never>;
  /** A portfolio's run: {symbols: [figures of each], gaps: [of each]}; null for one symbol. */
  portfolio: ColumnType<PortfolioJson | null, string | undefined, never>;
}

/** backtest_results.portfolio as stored (snake_case, as GET results serves it). */
export interface PortfolioJson {
  symbols: Record<string, number | string>[];
  gaps: Record<string, number | string>[];
}

export interface BacktestTradesTable {
  deployment_id: string;
  number: number;
  side: "long" | "short";
  entry_time: ColumnType<Date, Date, never>;
  entry_price: number;
  exit_time: ColumnType<Date, Date, never>;
  exit_price: number;
  size: number;
  pnl: number;
  fees: number;
  closed: boolean;
  /** A portfolio's trade: its symbol; null, the result's one symbol. */
  symbol: ColumnType<string | null, string | null | undefined, never>;
}

export type BacktestResultsRow = Selectable<BacktestResultsTable>;
export type BacktestTradeRow = Selectable<BacktestTradesTable>;

/** A conformance or stress run of one bot version (see compliance/), with its results. */
export interface ComplianceRunsTable {
  id: string;
  bot_id: string;
  kind: "conformance" | "stress";
  version: number;
  version_hash: string;
  task_id: string;
  status: "pending" | "running" | "completed" | "failed";
  passed: ColumnType<boolean, boolean | undefined, boolean>;
  peak_multiple: number;
  cases: ColumnType<Record<string, unknown>[], string | undefined, string>;
  stress: ColumnType<Record<string, unknown> | null, string | null | undefined, string | null>;
  cases_done: ColumnType<number, number | undefined, number>;
  cases_total: number;
  error: string | null;
  requested_by: string;
  created_at: ColumnType<Date, never, never>;
  started_at: ColumnType<Date | null, never, Date | null>;
  finished_at: ColumnType<Date | null, never, Date | null>;
  /** The process running it and when it last renewed that (null on rows from before leases). */
  host: ColumnType<string | null, string | null | undefined, string | null>;
  host_seen_at: ColumnType<Date | null, Date | null | undefined, Date | null>;
}

export type ComplianceRunRow = Selectable<ComplianceRunsTable>;

/** A throttle breach that disabled a bot, and the person who re-enabled it last. */
export interface BotRiskStateTable {
  bot_id: string;
  disabled: boolean;
  control: string;
  reason: string;
  limit_value: number;
  observed_value: number;
  task_id: string;
  disabled_at: Timestamp;
  re_enabled_by: string | null;
  re_enabled_at: ColumnType<Date | null, Date | string | null | undefined, Date | string | null>;
  re_enable_reason: string | null;
}

export interface FleetRiskLimitsTable {
  fleet: string;
  capital_limit: number;
  credit_limit: number;
  updated_by: string;
  updated_at: Timestamp;
}

export type BotRiskStateRow = Selectable<BotRiskStateTable>;
export type FleetRiskLimitsRow = Selectable<FleetRiskLimitsTable>;

/** Capital and limits an approved allocation gives a bot (by slug) or a fleet. */
export interface AllocationsTable {
  request_id: string;
  target: string;
  capital: number;
  limits: ColumnType<Record<string, unknown>, string, string>;
  active: boolean;
  applied_at: ColumnType<Date, never, never>;
  revoked_at: ColumnType<Date | null, never, Date | null>;
}

/** Artifacts the live plane may run, each from one approved promotion request. */
export interface LiveArtifactsTable {
  request_id: string;
  bot_id: string;
  version: number;
  version_hash: string;
  live_eligible: boolean;
  activated_at: ColumnType<Date, never, never>;
  revoked_at: ColumnType<Date | null, never, Date | null>;
}

export interface BotEventsTable {
  bot_id: string;
  seq: ColumnType<string, number | string, never>;
  task_id: string;
  type: string;
  occurred_at: Timestamp;
  data: ColumnType<Record<string, unknown>, string, never>;
}

export interface BotCheckpointsTable {
  bot_id: string;
  seq: ColumnType<string, number | string, never>;
  state: ColumnType<Record<string, unknown>, string, never>;
}

export interface BotDeploymentsTable {
  id: string;
  bot_id: string;
  version: number;
  target: "backtest" | "paper" | "k8s" | "live" | "venue_paper";
  status: DeploymentState;
  task_id: string;
  request: ColumnType<Record<string, unknown>, string, string>;
  result_summary: ColumnType<Record<string, unknown> | null, string | null, string | null>;
  error: string | null;
  host: ColumnType<string | null, string | null | undefined, string | null>;
  host_seen_at: ColumnType<Date | null, Date | string | null | undefined, Date | string | null>;
  /** Backtests: how many processes have started the run (a lease taken over is one more). */
  attempts: ColumnType<number, number | undefined, number>;
  /** Paper sessions: bumped each time the lease moves to another host; appends carry it as a fence. */
  lease_epoch: ColumnType<string, number | string | undefined, number | string>;
  /** Backtests: bars run so far and in all, and when the run started (its progress). */
  bars_done: ColumnType<string | null, number | undefined, number>;
  bars_total: ColumnType<string | null, number | undefined, number>;
  started_at: ColumnType<Date | null, Date | string | undefined, Date | string>;
  created_at: Timestamp;
  updated_at: Timestamp;
  /** A sweep's backtest: its sweep, combination (null: a fold's out-of-sample run) and fold (0: none). */
  sweep_id: ColumnType<string | null, string | null | undefined, never>;
  sweep_index: ColumnType<number | null, number | null | undefined, never>;
  sweep_fold: ColumnType<number | null, number | null | undefined, never>;
}

/** A parameter sweep (sweeps/): its checked plan; its runs are rows of bot_deployments. */
export interface SweepsTable {
  id: string;
  bot_id: string;
  version: number;
  request_key: string;
  request: ColumnType<Record<string, unknown>, string, never>;
  combinations: ColumnType<Array<Record<string, unknown>>, string, never>;
  skipped: number;
  folds: ColumnType<Array<{ is_start: string; is_end: string; oos_end: string }>, string, never>;
  cancelled_at: ColumnType<Date | null, never, Date>;
  advanced_at: ColumnType<Date | null, never, Date>;
  created_at: ColumnType<Date, never, never>;
}

/** A paper session's sandboxed strategy state as of a bar (see BotRunner's StrategyState). */
export interface SessionStrategyStateTable {
  task_id: string;
  bar: number;
  /** JSON text. */
  state: string;
  updated_at: ColumnType<Date, never, Date | string>;
}

export interface TrialLedgerTable {
  trial_id: string;
  bot_id: string;
  version: number;
  spec_hash: string;
  strategy_family: string;
  parameters: ColumnType<Record<string, unknown>, string, string>;
  data_source: string;
  /**
   * Only a trial recorded before backtests kept their results: the returns of any other are its
   * result's (backtest_results.daily_returns), read by GetTrialReturns.
   */
  daily_returns: ColumnType<number[] | null, never, never>;
  /** How many daily returns the trial has. */
  observations: number;
  sharpe: number;
  recorded_at: Timestamp;
}

export type DeploymentRow = Selectable<BotDeploymentsTable>;
export type NewDeploymentRow = Insertable<BotDeploymentsTable>;
export type NewTrialRow = Insertable<TrialLedgerTable>;

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
  /** "sha256:..." of the version's strategy source; null for a built-in family. */
  strategy_digest: ColumnType<string | null, string | null | undefined, never>;
  bundle_digest: ColumnType<string | null, string | null | undefined, never>;
}

/** A strategy's canonical source, keyed by its digest; written once, never updated. */
export interface StrategySourcesTable {
  digest: string;
  /** JSON text of [[path, content], ...], entry first. */
  files: string;
  created_at: Timestamp;
}

/** A strategy's bundle (one ES module, the SDK inlined), keyed by its digest. */
export interface StrategyBundlesTable {
  digest: string;
  bundle: string;
  /** The bundle's source map (v3 JSON); null before maps were kept, and for Python. */
  source_map: string | null;
  created_at: Timestamp;
}

/** An uploaded ONNX model, keyed by the digest of its bytes. */
export interface ModelsTable {
  digest: string;
  onnx: ColumnType<Buffer, Buffer, never>;
  size_bytes: ColumnType<string, number, never>;
  /** JSON text of the inputs as the runtime read them ([{ name, type, dims }]). */
  inputs: string;
  outputs: string;
  created_by: string;
  created_at: ColumnType<Date, Date | undefined, never>;
}

export type BotRow = Selectable<BotsTable>;
export type NewBotRow = Insertable<BotsTable>;
export type BotRowUpdate = Updateable<BotsTable>;
export type BotVersionRow = Selectable<BotVersionsTable>;
