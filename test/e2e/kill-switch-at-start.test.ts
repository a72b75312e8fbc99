import type { ChildProcess } from "node:child_process";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunningPlatform } from "@svc/all-in-one";
import { deleteTestStream } from "@svc/lib/bus/testing-streams";
import { approvedSession, statusOf } from "../support/paper.js";
import { startRunnerProcess } from "../support/runner-process.js";
import {
  call,
  createTestDatabase,
  startTestPlatform,
  testNatsNamespace,
  testNatsUrl,
} from "../support/test-platform.js";
import { eventually } from "../support/until.js";

// A runner that takes on a session whose switch is already engaged learns it from its first
// poll, while the session is still starting (data loading, first events being written). The
// halt must wait for the start and then bite; the next poll is a minute away, so a halt lost to
// the start would leave the session trading under the switch.
describe("a kill switch found while a paper session starts", () => {
  let db: Awaited<ReturnType<typeof createTestDatabase>>;
  let p: RunningPlatform;
  let runner: ChildProcess | undefined;
  const namespace = testNatsNamespace();
  const fleet = `at-start-${namespace}`;
  const env = () => ({
    SVC_DATABASE_URL: db.url,
    SVC_NATS_URL: testNatsUrl(),
    SVC_NATS_NAMESPACE: namespace,
    SVC_REDIS_URL: process.env.SVC_TEST_REDIS_URL ?? "redis://127.0.0.1:6379",
    SVC_KILLSWITCH_POLL_INTERVAL_S: "60",
  });

  beforeAll(async () => {
    db = await createTestDatabase();
    p = await startTestPlatform("postgres", { ...env(), SVC_RUNNERS: "external" });
  }, 60_000);
  afterAll(async () => {
    if (runner && runner.exitCode === null) runner.kill("SIGKILL");
    await call(p.url, "DELETE", `/kill-switches/${fleet}`).catch(() => undefined);
    await p?.close();
    await deleteTestStream(testNatsUrl(), namespace);
    await db?.drop();
  });

  it("halts it once started, and it stays halted", async () => {
    // No runner yet: the session is recorded, and nobody hosts it.
    await approvedSession(p, "at-start", fleet, 20);
    const put = await call(p.url, "PUT", `/kill-switches/${fleet}`, {
      scope: "fleet",
      target: fleet,
      mode: "cancel",
      reason: "engaged before the runner took the session",
    });
    expect(put.status).toBe(200);

    runner = await startRunnerProcess(env());
    expect(
      await eventually(
        "the session halts",
        () => statusOf(p, "at-start"),
        (s) => s === "halted",
      ),
    ).toBe("halted");
    // Halted for good: no bar is recorded after the halt while the switch holds.
    const bars = async () =>
      (await call(p.url, "GET", `/bots/at-start/state/events?type=bar_received&limit=1000`)).body
        .items.length as number;
    const before = await bars();
    // An observation window, not a wait for something to happen: at 20 bars a second, a session
    // still trading records about 20 bars in it (the bug this test caught recorded 15).
    await new Promise((r) => setTimeout(r, 1_000));
    expect(await bars()).toBe(before);
    expect(await statusOf(p, "at-start")).toBe("halted");
  });
});
