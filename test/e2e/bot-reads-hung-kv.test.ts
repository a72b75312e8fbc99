import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunningPlatform } from "@svc/all-in-one";
import { call, startTestPlatform } from "../support/test-platform.js";
import { startPrivateRedis, type PrivateServer } from "../support/private-servers.js";

// An operator checks a halted bot while Redis hangs (SIGSTOP: connections open, nothing
// answers). The answer must come, and must not say the bot is clear.
describe("reading a bot while the kill-switch store hangs", () => {
  let p: RunningPlatform;
  let redis: PrivateServer;
  beforeAll(async () => {
    redis = await startPrivateRedis();
    p = await startTestPlatform("pglite", { SVC_REDIS_URL: redis.url, SVC_KV_TIMEOUT_MS: "300" });
    const created = await call(p.url, "POST", "/bots", {
      name: "Halted at night",
      slug: "halted-night",
      kind: "trading",
      fleet: "nightly",
      strategy: { family: "ma_crossover", parameters: { fast: 3, slow: 8 } },
    });
    expect(created.status).toBe(201);
    const engaged = await call(p.url, "PUT", "/kill-switches/night-halt", {
      scope: "fleet",
      target: "nightly",
      mode: "cancel",
      reason: "desk closed",
    });
    expect(engaged.status).toBe(200);
  }, 60_000);
  afterAll(async () => {
    redis?.resume();
    await p?.close();
    await redis?.stop();
  });

  it("says engaged while the store answers, then unknown (never false) once it hangs, one bot or a list", async () => {
    const before = await call(p.url, "GET", "/bots/halted-night");
    expect(before.body.runtime).toMatchObject({ kill_switch_engaged: true });

    redis.pause();
    try {
      const one = await call(p.url, "GET", "/bots/halted-night");
      expect(one.status).toBe(200);
      expect(one.body.runtime.kill_switch_engaged).toBeUndefined();
      expect(one.body.runtime.kill_switch_reason).toMatch(/^unknown: /);

      const listed = await call(p.url, "GET", "/bots?include_runtime=true");
      expect(listed.status).toBe(200);
      const row = (
        listed.body.items as Array<{ slug: string; runtime: Record<string, unknown> }>
      ).find((b) => b.slug === "halted-night")!;
      expect(row.runtime.kill_switch_engaged).toBeUndefined();
      expect(row.runtime.kill_switch_reason).toMatch(/^unknown: /);
    } finally {
      redis.resume();
    }
    const after = await call(p.url, "GET", "/bots/halted-night");
    expect(after.body.runtime).toMatchObject({ kill_switch_engaged: true });
  });
});
