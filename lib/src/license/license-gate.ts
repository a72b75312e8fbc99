import type { JsonObject } from "@bufbuild/protobuf";
import type { Logger } from "../telemetry/index.js";
import { checkLease, type LeaseCheck } from "./check-lease.js";
import {
  CLOCK_SLACK_MS,
  holderPaths,
  readIfExists,
  readMemory,
  readPinnedKeys,
} from "./holder-files.js";
import { leaseStateAt } from "./lease-state.js";

/** The features a lease gates (the spec's list); a lease entitles one with `"<feature>": true`. */
export const LICENSE_FEATURES = ["byoc_deployments", "kb_federation", "live_trading"] as const;
export type LicenseFeature = (typeof LICENSE_FEATURES)[number];

/** Where the install's lease stands now, as the gate judged it. */
export interface LicenseStanding {
  /** valid and grace open the gate; expired and invalid (a refused file or clock) close it. */
  state: "valid" | "grace" | "expired" | "invalid";
  /** Seconds until the current state ends (0 once expired or invalid). */
  secondsLeft: number;
  /** Why the gate is closed, in words an operator can act on. */
  reason?: string;
  leaseId?: string;
  expiresAt?: string;
  entitlements: JsonObject;
}

export type FeatureVerdict =
  | { admitted: true; grace: boolean; standing: LicenseStanding }
  | { admitted: false; reason: string; standing: LicenseStanding };

/**
 * The install's side of license enforcement: it verifies the lease the license daemon keeps
 * (SVC_LICENSE_DIR) offline, as the daemon does (pinned key, signature, deployment, serial and
 * clock against the daemon's memory), re-reads the folder every `refreshMs`, and judges the lease
 * against the clock at every question, so valid -> grace -> expired happens on time, not at the
 * next read. It never asks the network: a holder decides offline.
 */
export interface LicenseGate {
  /** SVC_LICENSE_ENFORCEMENT_ENABLED: off, every feature is admitted and nothing is read. */
  readonly enforced: boolean;
  standing(): LicenseStanding;
  /** Whether `feature` may be used now; in grace it may, and the caller says so in a header. */
  admits(feature: LicenseFeature): FeatureVerdict;
  /**
   * Reads the license folder again now (the timer does it every refreshMs): what it resolves to
   * was read after the call, even when a read was already under way.
   */
  refresh(): Promise<void>;
  close(): void;
}

export interface LicenseGateOptions {
  enforced: boolean;
  dir: string;
  deploymentId: string;
  pinnedIds: string[];
  refreshMs: number;
  log: Logger;
  now?: () => number;
}

const OPEN: LicenseGate = {
  enforced: false,
  standing: () => ({ state: "valid", secondsLeft: 0, entitlements: {} }),
  admits() {
    return { admitted: true, grace: false, standing: this.standing() };
  },
  refresh: async () => {},
  close: () => {},
};

/**
 * Opens the gate: reads the folder once before it answers, then every `refreshMs`.
 *
 * @example const gate = await openLicenseGate({ enforced: true, dir: ".data/license", deploymentId: "acme-prod", pinnedIds: [id], refreshMs: 2000, log });
 */
export async function openLicenseGate(opts: LicenseGateOptions): Promise<LicenseGate> {
  if (!opts.enforced) return OPEN;
  const now = opts.now ?? Date.now;
  const paths = holderPaths(opts.dir);
  const log = opts.log.child({ component: "license-gate", deployment_id: opts.deploymentId });
  let checked: LeaseCheck = { ok: false, refusal: "no_lease", message: "not read yet" };
  let lastRunAtMs = 0;
  let reading: Promise<void> | undefined;
  let again: Promise<void> | undefined;
  let logged: string | undefined;

  async function read(): Promise<void> {
    try {
      const memory = await readMemory(paths);
      lastRunAtMs = memory.lastRunAtMs;
      checked = await checkLease(await readIfExists(paths.lease), {
        deploymentId: opts.deploymentId,
        pinnedIds: opts.pinnedIds,
        keys: await readPinnedKeys(paths, opts.pinnedIds),
        highestSerial: memory.highestSerial,
        nowMs: now(),
      });
    } catch (err) {
      checked = {
        ok: false,
        refusal: "malformed",
        message: `the license folder ${opts.dir} cannot be read: ${(err as Error).message}`,
      };
    }
    const s = standing();
    const line = `${s.state}:${s.reason ?? ""}:${s.leaseId ?? ""}`;
    if (line === logged) return;
    logged = line;
    const fields = { state: s.state, lease_id: s.leaseId, seconds_left: s.secondsLeft };
    if (s.state === "valid") log.info(fields, "license valid: licensed features are open");
    else if (s.state === "grace")
      log.warn(fields, "license in grace: licensed features pass with X-Service-License-Status");
    else
      log.error(
        { ...fields, reason: s.reason },
        `license ${s.state}: ${LICENSE_FEATURES.join(", ")} are refused (403 license_invalid) and trading bots are reduce-only until a lease is renewed`,
      );
  }

  function standing(): LicenseStanding {
    if (!checked.ok)
      return { state: "invalid", secondsLeft: 0, reason: checked.message, entitlements: {} };
    const p = checked.lease.payload;
    const nowMs = now();
    const base = { leaseId: p.lease_id, expiresAt: p.expires_at, entitlements: p.entitlements };
    if (nowMs < lastRunAtMs - CLOCK_SLACK_MS)
      return {
        ...base,
        state: "invalid",
        secondsLeft: 0,
        reason: `the clock reads earlier than the license daemon's last run at ${new Date(lastRunAtMs).toISOString()}: clock rollback`,
      };
    const at = leaseStateAt({
      expiresAtMs: Date.parse(p.expires_at),
      graceSeconds: p.grace_period_seconds,
      nowMs,
    });
    return at.state === "expired"
      ? {
          ...base,
          ...at,
          reason: `lease ${p.lease_id} expired at ${p.expires_at} and its grace period is over`,
        }
      : { ...base, ...at };
  }

  const refresh = (): Promise<void> => {
    if (!reading) return (reading = read().finally(() => (reading = undefined)));
    // The read under way may have read the folder before the caller changed it (a daemon just
    // installed a lease): one more read after it answers every caller that asked meanwhile.
    const next = () => {
      again = undefined;
      return refresh();
    };
    return (again ??= reading.then(next, next));
  };
  await refresh();
  const timer = setInterval(() => void refresh(), opts.refreshMs);
  timer.unref();

  return {
    enforced: true,
    standing,
    admits(feature) {
      const s = standing();
      if (s.state === "expired" || s.state === "invalid")
        return { admitted: false, reason: s.reason ?? s.state, standing: s };
      if (s.entitlements[feature] !== true)
        return {
          admitted: false,
          reason: `lease ${s.leaseId} does not entitle ${feature} (entitlements.${feature} is not true)`,
          standing: s,
        };
      return { admitted: true, grace: s.state === "grace", standing: s };
    },
    refresh,
    close: () => clearInterval(timer),
  };
}
