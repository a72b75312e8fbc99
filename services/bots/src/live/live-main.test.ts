import { spawn } from "node:child_process";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import type { DevVenue } from "@svc/dev-venue";
import { afterAll, describe, expect, it } from "vitest";
import { eventually } from "../../../../test/support/until.js";
import { devVenue, PASSWORD, USER } from "../execution/venues/venue-test-support.js";
import { insertK8sDeployment } from "../store/deployments.repository.js";
import {
  approvedBot,
  botsDatabase,
  promotionPublicKeyPem,
  workloadRuns,
} from "./live-test-support.js";

const liveMain = fileURLToPath(new URL("./live-main.ts", import.meta.url));
let store: Awaited<ReturnType<typeof botsDatabase>> | undefined;
let venue: DevVenue | undefined;
afterAll(async () => {
  await venue?.close();
  await store?.drop();
});

/** `npm run runner:live` for bot `b`, as the Deployment the bots service makes of it would run it. */
function runnerProcess(b: Awaited<ReturnType<typeof approvedBot>>) {
  const child = spawn(process.execPath, ["--import", "tsx", liveMain], {
    env: {
      ...process.env,
      SVC_LOG_LEVEL: "silent",
      SVC_DATABASE_URL: store!.url,
      SVC_PROMOTION_PUBLIC_KEY_PEM: promotionPublicKeyPem,
      SVC_LIVE_MODE: "live",
      SVC_LIVE_VENUE: "fix",
      SVC_LIVE_VENUE_PORT: String(venue!.port),
      SVC_LIVE_VENUE_USERNAME: USER,
      SVC_LIVE_VENUE_PASSWORD: PASSWORD,
      SVC_LIVE_BOT_SLUG: b.bot.slug,
      SVC_LIVE_VERSION: "1",
      SVC_LIVE_SPEC_HASH: b.bot.specHash,
      SVC_LIVE_APPROVED_PROMOTION: b.token,
      SVC_LIVE_BAR_MS: "100",
      SVC_RUNNER_LEASE_S: "3",
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stderr = "";
  child.stderr!.on("data", (d) => (stderr += String(d)));
  const exited = new Promise<number | string | null>((r) =>
    child.once("exit", (code, signal) => r(code ?? `${signal}: ${stderr}`)),
  );
  const lines: string[] = [];
  const rl = createInterface({ input: child.stdout! });
  rl.on("line", (l) => lines.push(l));
  return {
    exited,
    kill: (signal: NodeJS.Signals) => child.kill(signal),
    /** The first line of its output that `match` accepts (it rejects if the process exits first). */
    line: (match: (l: string) => boolean) =>
      new Promise<string>((resolve, reject) => {
        const seen = lines.find(match);
        if (seen !== undefined) return resolve(seen);
        rl.on("line", (l) => match(l) && resolve(l));
        void exited.then((code) => reject(new Error(`exited ${code}: ${stderr}`)));
      }),
  };
}

/**
 * The runner workload's entry point (`npm run runner:live`, the command of the Deployment the
 * bots service makes of a Bot), as a process with the environment the Deployment gives it.
 */
describe("a runner workload process", () => {
  it("starts the bot's live runner on the venue from its SVC_LIVE_* settings, and audits start and stop", async () => {
    store = await botsDatabase();
    venue = await devVenue();
    const b = await approvedBot(store.db, {
      universe: { symbols: ["TEST"] },
      strategy: { family: "ma_crossover", parameters: { fast: 2, slow: 3 } },
    });
    // What DeployBot wrote: the row whose lease the workload holds.
    await insertK8sDeployment(store.db, { botId: b.bot.id, version: 1, request: {} });
    const child = runnerProcess(b);
    const ready = await child.line((l) => l.startsWith("runner "));
    expect(ready).toBe(`runner ${b.bot.slug} live on fix`);
    expect(venue.sessionCount()).toBe(1);
    child.kill("SIGTERM");
    expect(await child.exited).toBe(0);
    await eventually(
      "the session logged out",
      () => venue!.sessionCount(),
      (n) => n === 0,
    );
    await eventually(
      "start and stop audited",
      () => workloadRuns(store!.db, b.bot.slug),
      (rows) => rows.length === 2,
    );
    expect(await workloadRuns(store.db, b.bot.slug)).toMatchObject([
      { outcome: "succeeded", op: "start", mode: "live", venue: "fix" },
      { outcome: "succeeded", op: "stop", reason: "the workload stopped" },
    ]);
  }, 90_000);

  it("a second runner of the same deployment waits for the lease, and starts once the first is gone", async () => {
    store ??= await botsDatabase();
    venue ??= await devVenue();
    const b = await approvedBot(store.db, {
      universe: { symbols: ["TEST"] },
      strategy: { family: "ma_crossover", parameters: { fast: 2, slow: 3 } },
    });
    await insertK8sDeployment(store.db, { botId: b.bot.id, version: 1, request: {} });
    const first = runnerProcess(b);
    expect(await first.line((l) => l.startsWith("runner "))).toBe(
      `runner ${b.bot.slug} live on fix`,
    );
    const second = runnerProcess(b);
    expect(await second.line((l) => l.includes("held by another runner"))).toMatch(/waiting/);
    expect(venue.sessionCount()).toBe(1); // the waiting runner did not even log on
    first.kill("SIGTERM");
    expect(await first.exited).toBe(0);
    // The first handed its lease back at its stop: the second takes it at its next try.
    expect(await second.line((l) => l === `runner ${b.bot.slug} live on fix`)).toBeTruthy();
    expect(venue.sessionCount()).toBe(1);
    second.kill("SIGTERM");
    expect(await second.exited).toBe(0);
    expect(
      (await workloadRuns(store.db, b.bot.slug)).map(
        (r) => `${String((r as { op?: string }).op)} ${r.outcome}`,
      ),
    ).toEqual(["start succeeded", "stop succeeded", "start succeeded", "stop succeeded"]);
  }, 90_000);
});
