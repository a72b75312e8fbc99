import { execFile } from "node:child_process";
import { createHash } from "node:crypto";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parse } from "yaml";
import type { RunningPlatform } from "@svc/all-in-one";
import {
  call,
  PLATFORM_START_TIMEOUT_MS,
  startTestPlatform,
} from "../../test/support/test-platform.js";

const run = promisify(execFile);
const main = fileURLToPath(new URL("./main.ts", import.meta.url));
const YEAR = String(new Date().getUTCFullYear());

// Each test starts `svc` as a process: 5-10 s apiece on a busy 2-core machine.
describe("svc report", { timeout: 60_000 }, () => {
  let p: RunningPlatform;
  beforeAll(async () => {
    p = await startTestPlatform("pglite");
    const bot = await call(p.url, "POST", "/bots", {
      name: "report-bot",
      slug: "report-bot",
      kind: "trading",
      strategy: { family: "ma_crossover", parameters: { fast: 3, slow: 8 } },
    });
    expect(bot.status, bot.text).toBe(201);
  }, PLATFORM_START_TIMEOUT_MS);
  afterAll(async () => {
    await p?.close();
  });

  const svc = (...args: string[]) =>
    run(process.execPath, ["--import", "tsx", main, "report", ...args], {
      env: { ...process.env, SVC_API_URL: p.url },
    });

  it("prints a bot's report exactly as served, and its SHA-256 on stderr", async () => {
    const { stdout, stderr } = await svc("report-bot", "--year", YEAR);
    const served = await call(p.url, "GET", `/bots/report-bot/risk/validation-report?year=${YEAR}`);
    expect(stdout).toBe(served.text);
    const sha = createHash("sha256").update(stdout, "utf8").digest("hex");
    expect(stderr.trim()).toBe(`sha256 ${sha}`);
    expect((parse(stdout) as { evidence: { scope: object } }).evidence.scope).toMatchObject({
      kind: "bot",
      bot: "report-bot",
      year: Number(YEAR),
    });
  });

  it("prints the platform's report without a bot", async () => {
    const { stdout } = await svc("--year", YEAR);
    const doc = parse(stdout) as { evidence: { bot_inventory: Array<{ slug: string }> } };
    expect(doc.evidence.bot_inventory.map((b) => b.slug)).toEqual(["report-bot"]);
  });

  it("exits non-zero naming the problem when the report is refused", async () => {
    const err = await svc("report-bot", "--year", String(Number(YEAR) + 1)).then(
      () => null,
      (e: unknown) => e as { code: number; stderr: string; stdout: string },
    );
    expect(err?.code).toBe(1);
    expect(err?.stdout).toBe("");
    expect(err?.stderr).toMatch(/report refused: 400 invalid_parameter: year=\d+ is in the future/);
  });
});
