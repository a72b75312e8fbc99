import { randomUUID } from "node:crypto";
import { hostname } from "node:os";
import { performance } from "node:perf_hooks";
import type { Kysely } from "kysely";
import type { EventBus } from "@svc/lib/bus";
import type { KeyValueStore } from "@svc/lib/kv";
import type { LicenseGate } from "@svc/lib/license";
import type { Logger } from "@svc/lib/telemetry";
import { isLiveSession } from "../domain/deployment-status.js";
import type { LiveRunner } from "../live/live-runner.js";
import { venueNotConfigured, type VenueSettings } from "../live/venue-settings.js";
import { keysFor, watchKillSwitch } from "../runner/kill-switch-watcher.js";
import { findBot } from "../store/bots.repository.js";
import type { BotRow, BotsDatabase, DeploymentRow } from "../store/bots.table.js";
import * as store from "../store/live-deployments.repository.js";
import { sessionLeases } from "../store/paper-sessions.repository.js";

export interface LiveDeploymentDeps {
  db: Kysely<BotsDatabase>;
  schema: string;
  log: Logger;
  kv: KeyValueStore;
  bus: EventBus;
  pollIntervalMs: number;
  /** Seconds a holder may stay silent before another takes its deployment (SVC_RUNNER_LEASE_S). */
  leaseSeconds: number;
  license?: LicenseGate;
  publicKeyPem: string | undefined;
  venue: VenueSettings;
  barMs: number;
}

interface Held {
  row: DeploymentRow;
  bot: BotRow;
  runner?: LiveRunner;
  watcher?: ReturnType<typeof watchKillSwitch>;
  /** performance.now() when the last renewal that succeeded was sent. */
  renewedAt: number;
  /** Start, halt and restart of this deployment, chained so they never interleave. */
  steps: Promise<void>;
}

/**
 * Runners at a venue (DeployBot targets live and venue_paper) hosted in the bots service's own
 * process, as `npm start` runs paper sessions. Each runs only under its deployment's lease: it is
 * claimed (one claimant wins; another process waits for the next pass), renewed every pass, and
 * a runner trades only while its last renewal is recent enough that no one else can have taken
 * the lease. A holder whose renewal finds the lease moved stops at once without writing; its
 * appends are fenced by the lease's epoch anyway.
 */
export class LiveDeployments {
  readonly hostId = `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;
  private readonly held = new Map<string, Held>();
  private passing: Promise<number> | undefined;
  private stopped = false;

  constructor(private readonly deps: LiveDeploymentDeps) {}

  /** Why a deploy to a venue cannot run here (no venue configured), or undefined. */
  notConfigured(): string | undefined {
    return venueNotConfigured(this.deps.venue);
  }

  /** The bot's running deployment at a venue, wherever it runs. */
  runningTaskOf(botId: string): Promise<string | undefined> {
    return store.runningVenueDeployment(this.deps.db, botId);
  }

  /** The runner of a deployment this process holds (tests read its phase). */
  runnerOf(taskId: string): LiveRunner | undefined {
    return this.held.get(taskId)?.runner;
  }

  /** Records a deployment; the caller then calls `pickUp` (here or in another process) to run it. */
  insert(bot: BotRow, target: store.VenueTarget, approvedPromotion: string) {
    return store.insertVenueDeployment(this.deps.db, {
      botId: bot.id,
      version: bot.current_version,
      target,
      request: { approved_promotion: approvedPromotion },
    });
  }

  /**
   * One pass: renews the leases held (a runner whose lease moved or whose deployment ended stops),
   * then claims and starts every running deployment nobody holds. Passes never overlap: a call
   * during a pass waits for it and then runs one more, so a new deployment is seen at once.
   */
  pickUp(): Promise<number> {
    const previous = this.passing ?? Promise.resolve(0);
    const next = previous.catch(() => 0).then(() => this.pass());
    this.passing = next;
    return next;
  }

  private async pass(): Promise<number> {
    if (this.stopped) return 0;
    const d = this.deps;
    for (const [taskId, h] of this.held) {
      const sentAt = performance.now();
      const ok = await store.renewVenueLease(d.db, taskId, this.hostId, String(h.row.lease_epoch));
      if (ok) h.renewedAt = sentAt;
      else await this.letGo(taskId, h);
    }
    if (this.notConfigured()) return 0;
    const claimedAt = performance.now();
    const rows = await store.claimVenueDeployments(d.db, this.hostId, d.leaseSeconds);
    let taken = 0;
    for (const row of rows) {
      if (this.held.has(row.task_id)) continue;
      const bot = await findBot(d.db, row.bot_id);
      if (!bot) continue;
      const h: Held = { row, bot, renewedAt: claimedAt, steps: Promise.resolve() };
      this.held.set(row.task_id, h);
      this.watch(h);
      if (row.status === "running") this.serially(h, () => this.launch(h));
      taken++;
    }
    return taken;
  }

  /** The renewal failed: the deployment ended (stop, writing its end) or the lease moved (abandon). */
  private async letGo(taskId: string, h: Held): Promise<void> {
    this.held.delete(taskId);
    await h.watcher?.stop();
    const [lease] = await sessionLeases(this.deps.db, [taskId]);
    const ours =
      lease?.host === this.hostId && String(lease.lease_epoch) === String(h.row.lease_epoch);
    if (ours && !isLiveSession(lease.status)) {
      // Ended elsewhere (a halt heard by another bots service): cancel at the venue, then stop.
      await h.steps;
      if (h.runner && h.runner.phase !== "Stopped")
        await h.runner.halt("cancel", h.row.error ?? "halted by the bots service");
      await h.runner?.stop("halted by the bots service");
      return;
    }
    this.deps.log.warn(
      { task_id: taskId, holder: lease?.host ?? null },
      "live deployment lease moved to another runner; stopped here without writing",
    );
    await h.runner?.abandon();
  }

  /** Renewed recently enough that no other runner can hold the lease yet (a third of it spare). */
  private leaseHeld(h: Held): boolean {
    return (
      this.held.get(h.row.task_id) === h &&
      performance.now() - h.renewedAt < (this.deps.leaseSeconds * 1000 * 2) / 3
    );
  }

  private serially(h: Held, step: () => Promise<void>): void {
    h.steps = h.steps
      .then(step)
      .catch((err: unknown) =>
        this.deps.log.error({ err, task_id: h.row.task_id }, "live deployment step failed"),
      );
  }

  private async launch(h: Held): Promise<void> {
    const d = this.deps;
    if (!this.leaseHeld(h)) return;
    const request = h.row.request as unknown as store.VenueRequest;
    // The venue adapters (jspurefix, ccxt) load at the first runner, not at every start.
    const { liveRunnerOfBot } = await import("../live/runner-of-bot.js");
    const runner = liveRunnerOfBot({
      bot: h.bot,
      mode: h.row.target === "live" ? "live" : "paper",
      taskId: h.row.task_id,
      approvedPromotion: request.approved_promotion,
      db: d.db,
      schema: d.schema,
      publicKeyPem: d.publicKeyPem,
      ...(d.license ? { license: d.license } : {}),
      venue: d.venue,
      barMs: d.barMs,
      fence: { host: this.hostId, epoch: String(h.row.lease_epoch) },
      mayTrade: () => this.leaseHeld(h),
    });
    h.runner = runner;
    try {
      await runner.start();
    } catch (err) {
      // A refused start (token, license, venue, reconciliation) was audited by the runner; the
      // deployment ends failed with its words, and the lease is let go.
      const message = err instanceof Error ? err.message : String(err);
      this.held.delete(h.row.task_id);
      await h.watcher?.stop();
      await store.setVenueStatus(d.db, h.row.task_id, this.hostId, "failed", message);
      d.log.warn({ task_id: h.row.task_id, err }, "live deployment refused to start");
    }
  }

  /** The bot's kill switches: engaged, the runner halts at the venue; released, it starts again. */
  private watch(h: Held): void {
    const d = this.deps;
    const taskId = h.row.task_id;
    h.watcher = watchKillSwitch({
      kv: d.kv,
      bus: d.bus,
      keys: keysFor(h.bot.slug, h.bot.fleet),
      pollMs: d.pollIntervalMs,
      onEngage: (e) =>
        this.serially(h, async () => {
          // Ended by a halt meanwhile: that halt owns the runner now.
          if (this.held.get(taskId) !== h) return;
          const runner = h.runner;
          if (!runner || runner.phase === "Stopped") return;
          const halt = await runner.halt(e.mode, `kill switch ${e.key}: ${e.reason || "engaged"}`);
          await store.setVenueStatus(d.db, taskId, this.hostId, "parked", null);
          d.log.info({ task_id: taskId, halt }, "live deployment halted at the venue");
        }),
      onRelease: () =>
        this.serially(h, async () => {
          if (this.held.get(taskId) !== h) return;
          await h.runner?.stop("kill switch released: restarting");
          if (this.held.get(taskId) !== h) return;
          await store.setVenueStatus(d.db, taskId, this.hostId, "running", null);
          await this.launch(h);
        }),
      onBlind: (blind) =>
        d.log.warn({ task_id: taskId, blind }, "kill switch keys unreadable for a live runner"),
    });
  }

  /**
   * Ends the bot's runners at the venue for good (a halt by request, a revoked promotion): each
   * one this process holds cancels its orders at the venue and stops; the row reads halted, so a
   * runner another process holds does the same at its next renewal. Answers the task ids ended.
   */
  haltBot(botId: string | undefined, reason: string): Promise<string[]> {
    // In line with the passes, so a renewal never sees the row ended while this halts its runner.
    const run = (this.passing ?? Promise.resolve(0))
      .catch(() => 0)
      .then(() => this.haltHere(botId, reason));
    this.passing = run.then(
      () => 0,
      () => 0,
    );
    return run;
  }

  private async haltHere(botId: string | undefined, reason: string): Promise<string[]> {
    const ended = await store.endVenueDeployments(this.deps.db, botId, reason);
    for (const taskId of ended) {
      const h = this.held.get(taskId);
      if (!h) continue;
      this.held.delete(taskId);
      await h.watcher?.stop();
      await h.steps;
      const runner = h.runner;
      if (runner && runner.phase !== "Stopped") await runner.halt("cancel", reason);
      await runner?.stop(reason);
      await store.releaseVenueLease(this.deps.db, taskId, this.hostId);
    }
    return ended;
  }

  /** At shutdown: every runner stops (its stop audited) and hands its lease back. */
  async stopAll(): Promise<void> {
    this.stopped = true;
    await this.passing?.catch(() => undefined);
    for (const [taskId, h] of this.held) {
      await h.watcher?.stop();
      await h.steps;
      await h.runner?.stop("the bots service stopped");
      await store.releaseVenueLease(this.deps.db, taskId, this.hostId);
    }
    this.held.clear();
  }
}
