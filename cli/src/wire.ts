/**
 * The parts of the API's JSON answers (proto/svc/*\/v1, snake_case on the wire) that the CLI
 * reads. Everything else passes through untouched to --json.
 */
export interface BotSummary {
  id: string;
  name: string;
  slug: string;
  kind: string;
  status: string;
  current_version: number;
  fleet: string;
}

export interface Bot extends BotSummary {
  spec_hash: string;
  spec: {
    strategy?: {
      family?: string;
      parameters?: Record<string, unknown> | null;
      code?: { digest?: string; files?: { path: string }[] } | null;
    } | null;
    universe?: { symbols?: string[]; timeframe?: string } | null;
  };
  created_at: string;
  runtime: {
    phase?: string;
    /** Absent when the key-value store did not answer: unknown. */
    kill_switch_engaged?: boolean;
    kill_switch_reason?: string;
  } | null;
}

export interface BacktestProgress {
  bars_done?: number | string;
  bars_total?: number | string;
  elapsed_s?: number;
  remaining_s?: number;
}

export interface Deployment {
  id: string;
  target: string;
  status: string;
  task_id: string;
  version: number;
  result_summary: Record<string, unknown> | null;
  created_at: string;
  updated_at: string;
  parked: boolean;
  progress?: BacktestProgress | null;
}

export interface PromotionRequest {
  request_id: string;
  kind: string;
  status: string;
  requested_by: string;
  artifact: { bot_ref: string; version: number; version_hash: string } | null;
  gates: Array<{ name: string; passed: boolean; detail: string }>;
  decisions: Array<{ actor: string; action: string; note: string }>;
  approved_promotion: string;
  created_at: string;
}

export interface KillSwitch {
  metadata: { name: string };
  spec: { scope: string; target: string; mode: string; reason: string; ttl: string };
  status: { engaged: boolean; engaged_by: string; engaged_at: string | null; key_state: string };
}

export interface Dataset {
  name: string;
  data_source: string;
  symbol: string;
  timeframe: string;
  first_bar_time: string | null;
  last_bar_time: string | null;
  bar_count: number | string;
  bundled: boolean;
  created_by: string;
  symbols?: string[];
  gaps?: number | string;
  digest?: string;
  origin?: string;
}

export interface PullAnswer {
  dataset: Dataset;
  bars_written: number | string;
  pages: number;
  complete: boolean;
}

export interface Items<T> {
  items: T[];
  /** Pass as page_token for the next page; empty on the last. */
  next_page_token?: string;
}
