import { mkdir } from "node:fs/promises";
import { setTimeout as sleep } from "node:timers/promises";
import type { Logger } from "@svc/lib/telemetry";
import {
  checkLease,
  CLOCK_SLACK_MS,
  holderPaths,
  parseLease,
  readIfExists,
  readMemory,
  readPinnedKeys,
  renewalDue,
  type HolderMemory,
  type LeaseCheck,
  type LeasePublicKey,
  type LeaseState,
  type Refusal,
} from "@svc/lib/license";
import { signRenewal } from "../lease/index.js";
import { removeLeftoverTemps, writeFileAtomic } from "./atomic-file.js";
import { backoffMs } from "./backoff.js";
import { readDeviceKey } from "./device-key.js";
import { writeMemory } from "./holder-files.js";
import { rememberServedKeys } from "./pinned-keys.js";
import { createVendorClient } from "./vendor-client.js";

/** What the daemon exports in status.json: the gate of a self-hosted install reads it. */
export interface HolderStatus {
  /** valid and grace open the gate; expired and invalid (a refused file or clock) close it. */
  state: LeaseState | "invalid";
  /** The vendor refused a renewal as revoked; the lease still decays offline, no remote kill. */
  revoked: boolean;
  /** Seconds until the current state ends (valid: until expiry; grace: until grace ends). */
  seconds_left: number;
  deployment_id: string;
  lease_id?: string;
  serial?: number;
  expires_at?: string;
  refusal?: Refusal;
  reason?: string;
  checked_at: string;
}

export interface DaemonOptions {
  dir: string;
  deploymentId: string;
  pinnedIds: string[];
  serverUrl?: string;
  checkIntervalS: number;
  log: Logger;
  now?: () => number;
}

/**
 * The holder side of licensing: one `tick` checks the lease file offline, renews it when under 24
 * hours remain, rewrites it atomically and exports the status; `run` repeats it, backing off with
 * jitter while the vendor is unreachable.
 */
export function createLicenseDaemon(opts: DaemonOptions) {
  const paths = holderPaths(opts.dir);
  const now = opts.now ?? Date.now;
  const vendor = opts.serverUrl ? createVendorClient(opts.serverUrl) : undefined;
  const log = opts.log.child({ deployment_id: opts.deploymentId });
  let unreachableAttempts = 0;

  async function keys(): Promise<LeasePublicKey[]> {
    const cached = await readPinnedKeys(paths, opts.pinnedIds);
    if (cached.length === opts.pinnedIds.length || !vendor) return cached;
    const served = await vendor.publicKeys();
    if (!served.ok) return cached;
    return rememberServedKeys(paths, opts.pinnedIds, served.value.keys ?? []);
  }

  async function check(memory: HolderMemory, text: string | undefined, nowMs: number) {
    return checkLease(text, {
      deploymentId: opts.deploymentId,
      pinnedIds: opts.pinnedIds,
      keys: await keys(),
      highestSerial: memory.highestSerial,
      nowMs,
    });
  }

  /** Asks the vendor for a new lease; true when one was written. */
  async function renew(
    memory: HolderMemory,
    nowMs: number,
  ): Promise<"renewed" | "unreachable" | "refused"> {
    const device = await readDeviceKey(paths);
    if (!vendor || !device || !memory.leaseId) {
      log.warn(
        { has_server: !!vendor, has_device_key: !!device, has_lease: !!memory.leaseId },
        "renewal due but impossible: it needs SVC_LICENSE_SERVER_URL, a device key (svc-license-daemon init) and an installed lease",
      );
      return "refused";
    }
    const answer = await vendor.renew({
      deployment_id: opts.deploymentId,
      renew_lease_id: memory.leaseId,
      device_credential: await signRenewal(device.secretKey, {
        deploymentId: opts.deploymentId,
        leaseId: memory.leaseId,
        nowMs,
      }),
    });
    if (!answer.ok && answer.unreachable) {
      unreachableAttempts += 1;
      log.warn(
        { why: answer.why, attempt: unreachableAttempts },
        "identity service unreachable; lease not renewed",
      );
      return "unreachable";
    }
    unreachableAttempts = 0;
    if (!answer.ok) {
      if (answer.code === "license_revoked") {
        memory.revoked = true;
        await writeMemory(paths, memory);
        log.error(
          { code: answer.code },
          `renewal refused: the license is revoked (${answer.message}); the lease decays offline and is not renewed again`,
        );
      } else
        log.error(
          { code: answer.code, status: answer.status },
          `renewal refused: ${answer.message}`,
        );
      return "refused";
    }
    const fresh = await check(memory, answer.value.lease, nowMs);
    if (!fresh.ok || fresh.lease.payload.serial <= memory.highestSerial) {
      log.error(
        { refusal: fresh.ok ? "older_serial" : fresh.refusal },
        `the renewed lease is refused, the old file is kept: ${fresh.ok ? "its serial is not newer" : fresh.message}`,
      );
      return "refused";
    }
    await writeFileAtomic(paths.lease, answer.value.lease);
    log.info(
      {
        lease_id: fresh.lease.payload.lease_id,
        serial: fresh.lease.payload.serial,
        expires_at: fresh.lease.payload.expires_at,
      },
      "lease renewed and rewritten",
    );
    return "renewed";
  }

  async function exportStatus(
    c: LeaseCheck,
    memory: HolderMemory,
    nowMs: number,
  ): Promise<HolderStatus> {
    const status: HolderStatus = c.ok
      ? {
          state: c.state,
          revoked: memory.revoked,
          seconds_left: c.secondsLeft,
          deployment_id: opts.deploymentId,
          lease_id: c.lease.payload.lease_id,
          serial: c.lease.payload.serial,
          expires_at: c.lease.payload.expires_at,
          checked_at: new Date(nowMs).toISOString(),
        }
      : {
          state: "invalid",
          revoked: memory.revoked,
          seconds_left: 0,
          deployment_id: opts.deploymentId,
          refusal: c.refusal,
          reason: c.message,
          checked_at: new Date(nowMs).toISOString(),
        };
    await writeFileAtomic(paths.status, JSON.stringify(status, null, 2) + "\n");
    return status;
  }

  /** One check, and a renewal when due; returns the exported status and whether the vendor was reachable. */
  async function tick(): Promise<{ status: HolderStatus; unreachable: boolean }> {
    await mkdir(paths.dir, { recursive: true });
    const left = await removeLeftoverTemps(paths.dir);
    if (left.length > 0)
      log.warn({ files: left }, "removed temp files an interrupted rewrite left behind");
    const nowMs = now();
    const memory = await readMemory(paths);
    if (nowMs < memory.lastRunAtMs - CLOCK_SLACK_MS) {
      const message = `the clock reads ${new Date(nowMs).toISOString()}, earlier than the last run at ${new Date(memory.lastRunAtMs).toISOString()}: clock rollback, the lease is not trusted until the clock is right`;
      log.error({ refusal: "clock_rollback" }, message);
      const status = await exportStatus(
        { ok: false, refusal: "clock_rollback", message },
        memory,
        nowMs,
      );
      return { status, unreachable: false };
    }
    memory.lastRunAtMs = Math.max(memory.lastRunAtMs, nowMs);
    let c = await check(memory, await readIfExists(paths.lease), nowMs);
    if (!c.ok) log.error({ refusal: c.refusal }, `lease refused: ${c.message}`);
    else accept(memory, c);
    await writeMemory(paths, memory);

    let unreachable = false;
    const due = c.ok
      ? renewalDue(Date.parse(c.lease.payload.expires_at), nowMs)
      : c.refusal !== "clock_rollback";
    if (due && !memory.revoked) {
      const outcome = await renew(memory, nowMs);
      unreachable = outcome === "unreachable";
      if (outcome === "renewed") {
        c = await check(memory, await readIfExists(paths.lease), nowMs);
        if (c.ok) accept(memory, c);
        await writeMemory(paths, memory);
      }
    }
    const status = await exportStatus(c, memory, nowMs);
    log.info(
      {
        state: status.state,
        revoked: status.revoked,
        seconds_left: status.seconds_left,
        serial: status.serial,
      },
      `license ${status.revoked ? "revoked, " : ""}${status.state}, ${status.seconds_left} s left`,
    );
    return { status, unreachable };
  }

  function accept(memory: HolderMemory, c: Extract<LeaseCheck, { ok: true }>) {
    memory.highestSerial = Math.max(memory.highestSerial, c.lease.payload.serial);
    memory.leaseId = c.lease.payload.lease_id;
  }

  return {
    paths,
    tick,

    /** Verifies a lease handed over by the vendor and makes it the lease file. */
    async install(text: string): Promise<HolderStatus> {
      await mkdir(paths.dir, { recursive: true });
      const memory = await readMemory(paths);
      const c = await check(memory, text, now());
      if (!c.ok) throw new Error(`lease refused: ${c.message}`);
      await writeFileAtomic(paths.lease, JSON.stringify(parseLease(text)));
      accept(memory, c);
      await writeMemory(paths, memory);
      return exportStatus(c, memory, now());
    },

    /** Ticks until `signal` aborts: every check interval, sooner with backoff while unreachable. */
    async run(signal: AbortSignal): Promise<void> {
      const intervalMs = opts.checkIntervalS * 1000;
      while (!signal.aborted) {
        let delay = intervalMs;
        try {
          const { status, unreachable } = await tick();
          if (unreachable) {
            delay = backoffMs(unreachableAttempts, Math.min(1000, intervalMs), intervalMs);
            log.warn(
              { retry_in_ms: delay, attempt: unreachableAttempts },
              `retrying the renewal in ${(delay / 1000).toFixed(1)} s`,
            );
          } else if (status.expires_at && !status.revoked) {
            // Wake when the 24-hour renewal window opens, if that comes before the next check.
            const opensInMs = Date.parse(status.expires_at) - 86_400_000 - now();
            if (opensInMs > 0) delay = Math.min(delay, opensInMs + 1000);
          }
        } catch (err) {
          log.error({ err }, "license check failed; trying again at the next interval");
        }
        // timers/promises removes its abort listener when the wait ends: one added per check and
        // never removed would pile up (Node warns after 11) over a daemon's months of checks.
        await sleep(delay, undefined, { signal }).catch((err: unknown) => {
          if (!signal.aborted) throw err;
        });
      }
    },
  };
}
