import { getEventListeners } from "node:events";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { createLogger } from "@svc/lib/telemetry";
import { createLicenseDaemon } from "./license-daemon.js";

describe("the license daemon's run loop", () => {
  const dirs: string[] = [];
  afterAll(() => Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true }))));

  it("leaves no listener on its stop signal behind, however many checks it makes", async () => {
    const dir = await mkdtemp(join(tmpdir(), "license-loop-"));
    dirs.push(dir);
    const stop = new AbortController();
    const listenersAtCheck: number[] = [];
    const daemon = createLicenseDaemon({
      dir,
      deploymentId: "dep-loop",
      pinnedIds: ["k1"],
      // A millisecond between checks: thirty checks run at once, each a wait on the signal.
      checkIntervalS: 0.001,
      log: createLogger({ name: "license-daemon-test", level: "silent" }),
      now: () => {
        listenersAtCheck.push(getEventListeners(stop.signal, "abort").length);
        if (listenersAtCheck.length >= 30) stop.abort();
        return Date.now();
      },
    });
    await daemon.run(stop.signal);
    expect(listenersAtCheck.length).toBeGreaterThanOrEqual(30);
    // Node warns from the 11th; a daemon that runs for months must hold at most the one it waits on.
    expect(Math.max(...listenersAtCheck)).toBeLessThanOrEqual(1);
  });
});
