import { randomUUID } from "node:crypto";
import { hostname } from "node:os";
import { performance } from "node:perf_hooks";
import { setTimeout as sleep } from "node:timers/promises";
import type { Kysely } from "kysely";
import type { BotsDatabase } from "../store/bots.table.js";
import type { LeaseFence } from "../store/events.repository.js";
import {
  claimVenueDeployments,
  releaseVenueLease,
  renewVenueLease,
} from "../store/live-deployments.repository.js";

/**
 * The lease a runner workload holds on its deployment's row, so two runners of one deployment
 * (a node cut off with its pod still running, a second process on a laptop) never both trade:
 * `acquire` waits until this runner holds it; `mayTrade` is true only while the last renewal is
 * recent enough that nobody else can have claimed it (a paused process that resumes sends
 * nothing before renewing); a renewal that finds the lease moved calls `onLost`.
 */
export class WorkloadLease {
  readonly hostId = `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;
  fence: LeaseFence | undefined;
  private renewedAt = -Infinity;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly db: Kysely<BotsDatabase>,
    readonly taskId: string,
    private readonly leaseSeconds: number,
  ) {}

  /** Claims the lease, trying again every third of it until it is held or `signal` aborts. */
  async acquire(signal?: AbortSignal, onWait?: () => void): Promise<LeaseFence> {
    for (;;) {
      const sentAt = performance.now();
      const [row] = await claimVenueDeployments(this.db, this.hostId, this.leaseSeconds, [
        this.taskId,
      ]);
      if (row) {
        this.renewedAt = sentAt;
        this.fence = { host: this.hostId, epoch: String(row.lease_epoch) };
        return this.fence;
      }
      onWait?.();
      await sleep((this.leaseSeconds * 1000) / 3, undefined, { signal });
    }
  }

  /** Renews every third of the lease; `onLost` once a renewal finds it moved or ended. */
  keep(onLost: () => void): void {
    this.timer = setInterval(
      () => {
        const sentAt = performance.now();
        void renewVenueLease(this.db, this.taskId, this.hostId, this.fence!.epoch).then(
          (ok) => {
            if (ok) this.renewedAt = sentAt;
            else {
              this.stop();
              onLost();
            }
          },
          // A failed renewal is not a lost lease, but mayTrade turns false as time passes.
          () => undefined,
        );
      },
      (this.leaseSeconds * 1000) / 3,
    );
    this.timer.unref();
  }

  mayTrade = (): boolean =>
    this.fence !== undefined &&
    performance.now() - this.renewedAt < (this.leaseSeconds * 1000 * 2) / 3;

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
  }

  /** A clean stop hands the lease back, so the next runner starts without waiting it out. */
  async release(): Promise<void> {
    this.stop();
    await releaseVenueLease(this.db, this.taskId, this.hostId);
  }
}
