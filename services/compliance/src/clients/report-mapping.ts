import type { Timestamp } from "@bufbuild/protobuf/wkt";
import { timestampDate } from "@bufbuild/protobuf/wkt";
import {
  BotKind,
  ComplianceRunStatus,
  type Bot,
  type ComplianceRun,
} from "@svc/gen/svc/bots/v1/bots_pb.js";
import {
  DrillState,
  DrillVerdict,
  type DrillResult,
} from "@svc/gen/svc/killswitch/v1/killswitch_pb.js";
import type {
  ConformanceEntry,
  DrillEntry,
  InventoryEntry,
  JsonValue,
  RunEntry,
  StressEntry,
} from "../domain/report-types.js";

const iso = (t: Timestamp | undefined) => (t ? timestampDate(t).toISOString() : null);
const json = (o: unknown) => (o ?? {}) as { [k: string]: JsonValue };

const KIND: Record<BotKind, string> = {
  [BotKind.UNSPECIFIED]: "",
  [BotKind.TRADING]: "trading",
  [BotKind.RESEARCH]: "research",
};
const RUN_STATUS: Record<ComplianceRunStatus, string> = {
  [ComplianceRunStatus.UNSPECIFIED]: "pending",
  [ComplianceRunStatus.PENDING]: "pending",
  [ComplianceRunStatus.RUNNING]: "running",
  [ComplianceRunStatus.COMPLETED]: "completed",
  [ComplianceRunStatus.FAILED]: "failed",
};
const DRILL_STATE: Record<DrillState, string> = {
  [DrillState.UNSPECIFIED]: "",
  [DrillState.RUNNING]: "running",
  [DrillState.FINISHED]: "finished",
  [DrillState.INTERRUPTED]: "interrupted",
};
const DRILL_VERDICT: Record<DrillVerdict, string | null> = {
  [DrillVerdict.UNSPECIFIED]: null,
  [DrillVerdict.PASS]: "pass",
  [DrillVerdict.FAIL]: "fail",
  [DrillVerdict.NO_BOTS]: "no_bots",
};

/** The bot as the report's inventory shows it: what it is and the limits its spec sets. */
export function inventoryEntry(b: Bot): InventoryEntry {
  const r = b.spec?.risk;
  return {
    id: b.id,
    slug: b.slug,
    name: b.name,
    kind: KIND[b.kind],
    fleet: b.fleet,
    created_at: iso(b.createdAt) ?? "",
    current_version: b.currentVersion,
    spec_hash: b.specHash,
    risk_limits: {
      max_order_notional: r?.maxOrderNotional ?? 0,
      max_order_units: r?.maxOrderUnits ?? 0,
      capital_limit: r?.capitalLimit ?? 0,
      credit_limit: r?.creditLimit ?? 0,
      price_collar_pct: r?.priceCollarPct ?? 0,
      max_orders_per_window: r?.maxOrdersPerWindow ?? 0,
      throttle_window_s: r?.throttleWindowS ?? 0,
      duplicate_window_s: r?.duplicateWindowS ?? 0,
      duplicate_tolerance_pct: r?.duplicateTolerancePct ?? 0,
      restricted_symbols: [...(r?.restrictedSymbols ?? [])],
    },
  };
}

function runEntry(r: ComplianceRun): RunEntry {
  return {
    id: r.id,
    bot_id: r.botId,
    bot_slug: r.botSlug,
    article: r.article,
    status: RUN_STATUS[r.status],
    version: r.version,
    version_hash: r.versionHash,
    passed: r.passed,
    error: r.error,
    requested_by: r.requestedBy,
    created_at: iso(r.createdAt) ?? "",
    started_at: iso(r.startedAt),
    finished_at: iso(r.finishedAt),
  };
}

export const conformanceEntry = (r: ComplianceRun): ConformanceEntry => ({
  ...runEntry(r),
  cases: r.cases.map((c) => ({
    name: c.name,
    article: c.article,
    expected: c.expected,
    observed: c.observed,
    passed: c.passed,
    evidence: json(c.evidence),
  })),
});

export function stressEntry(r: ComplianceRun): StressEntry {
  const s = r.stress;
  return {
    ...runEntry(r),
    stress: s
      ? {
          peak_source: s.peakSource,
          peak_messages_per_second: s.peakMessagesPerSecond,
          peak_volume: s.peakVolume,
          peak_multiple: s.peakMultiple,
          demanded_messages_per_second: s.demandedMessagesPerSecond,
          replayed_peak_volume: s.replayedPeakVolume,
          orders_sent: Number(s.ordersSent),
          orders_accepted: Number(s.ordersAccepted),
          orders_rejected: Number(s.ordersRejected),
          orders_lost: Number(s.ordersLost),
          controls_held: s.controlsHeld,
          control_violations: [...s.controlViolations],
          rejections_by_control: json(s.rejectionsByControl),
          throttle_expected: s.throttleExpected,
          throttle_fired: s.throttleFired,
          latency: {
            p50_us: s.latency?.p50Us ?? 0,
            p99_us: s.latency?.p99Us ?? 0,
            max_us: s.latency?.maxUs ?? 0,
          },
          capacity_messages_per_second: s.capacityMessagesPerSecond,
          headroom: s.headroom,
          replay: s.replay,
          achieved_messages_per_second: s.achievedMessagesPerSecond,
          demanded_rate_reached: s.demandedRateReached,
          time_compression: s.timeCompression,
          laps: s.laps,
          bars_replayed: Number(s.barsReplayed),
          max_volume_participation: s.maxVolumeParticipation,
          fills_volume_limited: Number(s.fillsVolumeLimited),
          orders_cancelled_for_volume: Number(s.ordersCancelledForVolume),
        }
      : null,
  };
}

export function drillEntry(d: DrillResult): DrillEntry {
  return {
    id: d.id,
    started_at: iso(d.startedAt) ?? "",
    ended_at: iso(d.endedAt),
    state: DRILL_STATE[d.state],
    verdict: DRILL_VERDICT[d.verdict],
    bots: d.bots,
    reason: d.reason,
    started_by: d.startedBy,
    note: d.note,
    per_bot: d.perBot.map((b) => ({
      bot_id: b.botId,
      bot_slug: b.botSlug,
      task_id: b.taskId,
      high_frequency: b.highFrequency,
      high_frequency_basis: b.highFrequencyBasis,
      draining_bound_ms: b.drainingBoundMs,
      stopped_bound_ms: b.stoppedBoundMs,
      draining_ms: b.drainingMs ?? null,
      stopped_ms: b.stoppedMs ?? null,
      restarted: b.restarted,
      verdict: DRILL_VERDICT[b.verdict],
      misses: b.misses.map((m) => ({
        bound: m.bound,
        bound_ms: m.boundMs,
        observed_ms: m.observedMs ?? null,
        message: m.message,
      })),
    })),
  };
}
