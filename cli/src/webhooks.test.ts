import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunningPlatform } from "@svc/all-in-one";
import { PLATFORM_START_TIMEOUT_MS, startTestPlatform } from "../../test/support/test-platform.js";
import { svcIn } from "./testing.js";

describe("svc webhooks", () => {
  let p: RunningPlatform;
  const svc = (args: string[]) => svcIn(p.url, args);

  beforeAll(async () => {
    p = await startTestPlatform("pglite", { SVC_VAULT_KEK: randomBytes(32).toString("base64") });
  }, PLATFORM_START_TIMEOUT_MS);
  afterAll(async () => {
    await p?.close();
  });

  it("creates a subscription showing its secret once, lists it without, and deletes it", async () => {
    const made = await svc([
      "webhooks",
      "create",
      "--target",
      "https://hooks.example.com/svc",
      "--events",
      "killswitch.engaged, bot.halted",
    ]);
    expect(made.stderr).toBe("");
    expect(made.code).toBe(0);
    const secret = /secret\s+(whsec_\S+)/.exec(made.stdout)?.[1];
    expect(secret).toBeDefined();
    const id = /subscription\s+(\S+)/.exec(made.stdout)![1]!;

    const listed = await svc(["webhooks", "list"]);
    expect(listed.stdout).toContain(id);
    expect(listed.stdout).toContain("killswitch.engaged,bot.halted");
    expect(listed.stdout).not.toContain(secret!);

    const deliveries = await svc(["--json", "webhooks", "deliveries", id]);
    expect(JSON.parse(deliveries.stdout)).toEqual({ items: [] });
    expect((await svc(["webhooks", "dead-letters"])).code).toBe(0);

    expect((await svc(["webhooks", "delete", id])).code).toBe(0);
    const gone = await svc(["webhooks", "delete", id]);
    expect(gone.code).not.toBe(0);
    expect(gone.stderr).toContain("webhook_subscription_not_found");
  });

  it("says why a URL is refused", async () => {
    const refused = await svc([
      "webhooks",
      "create",
      "--target",
      "https://169.254.169.254/",
      "--events",
      "killswitch.engaged",
    ]);
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toContain("internal address");
  });
});
