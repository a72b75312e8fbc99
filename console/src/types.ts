/** The API's answers, as much of them as the console reads (snake_case, as on the wire). */
export interface BotSummary {
  id: string;
  name: string;
  slug: string;
  kind: string;
  status: string;
  current_version: number;
  fleet: string;
  /**
   * Only on a list asked with include_runtime, and on one bot. kill_switch_engaged is absent
   * when the key-value store did not answer: unknown.
   */
  runtime?: { phase?: string; kill_switch_engaged?: boolean; kill_switch_reason?: string } | null;
}

export interface Bot extends BotSummary {
  spec_hash: string;
  spec: Record<string, unknown>;
  updated_at?: string;
}

export interface BotVersion {
  version: number;
  spec_hash: string;
  created_at: string;
  created_by: string;
  /** Set when the version's strategy is code: the digest of its source. */
  strategy_digest?: string;
}

/** GET /bots/{ref}/versions/{n}/strategy: a version's code with its digests. */
export interface StrategySource {
  version: number;
  code: {
    files: { path: string; content: string }[];
    digest: string;
    bundle_digest: string;
    sdk_version: string;
  };
}

export interface Deployment {
  id: string;
  target: string;
  status: string;
  task_id: string;
  result_summary?: Record<string, unknown> | null;
  version: number;
  created_at: string;
  updated_at: string;
  parked: boolean;
  progress?: Record<string, unknown> | null;
}

export interface BotEvent {
  seq: string | number;
  type: string;
  occurred_at: string;
  data?: Record<string, unknown> | null;
}

export interface GateOutcome {
  name: string;
  passed: boolean;
  detail: string;
}

export interface PromotionRequest {
  request_id: string;
  kind: string;
  artifact?: { bot_ref: string; version: number; version_hash: string } | null;
  validation?: { verdict: string; validator?: string; findings?: string[] } | null;
  risk?: { decision: string } | null;
  evidence?: {
    deflated_sharpe_ratio?: number;
    probability_of_backtest_overfitting?: number;
    trial_count?: number;
    trial_ledger_ref?: string;
  } | null;
  requested_by: string;
  status: string;
  gates: GateOutcome[];
  decisions: { actor: string; at: string; action: string; note: string }[];
  approved_promotion?: string;
  created_at: string;
}

export interface KillSwitch {
  metadata: { name: string };
  spec: { scope: string; target: string; mode: string; reason: string; ttl: string };
  status: { engaged: boolean; engaged_by: string; engaged_at: string; key_state: string };
}

/** One agent switch (GET /agents/halt): engaged by `svc halt-all` or the agent halt routes. */
export interface AgentHalt {
  scope: "agents" | "quant_agents";
  key: string;
  engaged?: boolean;
  reason?: string;
  engaged_by?: string;
  engaged_at?: string;
}

export interface Drill {
  id: string;
  state: string;
  verdict: string | null;
  started_at: string;
  ended_at?: string;
  bots: number;
  draining_p50_ms: number;
  draining_max_ms: number;
  stopped_max_ms: number;
  all_restarted: boolean;
  note: string;
  per_bot: {
    bot_slug: string;
    draining_ms?: number;
    stopped_ms?: number;
    draining_bound_ms: number;
    stopped_bound_ms: number;
    restarted: boolean;
    verdict: string | null;
  }[];
}

export interface WhoAmI {
  sub: string;
  actor_type: string;
  scopes: string[];
  acr: string;
  amr: string[];
}
