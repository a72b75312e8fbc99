import { mkdir, mkdtemp, readFile, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunningPlatform } from "@svc/all-in-one";
import {
  call,
  PLATFORM_START_TIMEOUT_MS,
  startTestPlatform,
} from "../../test/support/test-platform.js";
import { svcIn } from "./testing.js";

describe("svc strategy", () => {
  let p: RunningPlatform;
  let dir: string;
  const svc = (args: string[]) => svcIn(p.url, args);

  beforeAll(async () => {
    p = await startTestPlatform("postgres");
    dir = await mkdtemp(join(tmpdir(), "svc-strategy-"));
  }, PLATFORM_START_TIMEOUT_MS);
  afterAll(async () => {
    await p?.close();
  });

  it("init writes a strategy that check passes, and will not overwrite a file", async () => {
    const file = join(dir, "strategy.ts");
    const init = await svc(["strategy", "init", file]);
    expect(init.code).toBe(0);
    expect(await readFile(file, "utf8")).toContain("export default defineStrategy(");
    const check = await svc(["strategy", "check", file]);
    expect(check).toMatchObject({ code: 0, stderr: "" });
    expect(check.stdout).toMatch(/: ok, sha256:[0-9a-f]{64} \(1 file\)\n$/);

    const again = await svc(["strategy", "init", file]);
    expect(again.code).toBe(2);
    expect(again.stderr).toContain("exists; choose another name or pass --force");
  });

  it("check prints each error as file:line:column and exits 1", async () => {
    const folder = join(dir, "broken");
    await mkdir(join(folder, "lib"), { recursive: true });
    const entry = join(folder, "main.ts");
    await writeFile(
      entry,
      `import { defineStrategy } from "@svc/strategy-sdk";\nimport { f } from "./lib/f";\nexport default defineStrategy({ params: {}, onBar(ctx) { f(ctx.time); } });\n`,
    );
    await writeFile(
      join(folder, "lib", "f.ts"),
      `import fs from "fs";\nexport const f = (n: number): string => n;\n`,
    );
    const r = await svc(["strategy", "check", entry, join(folder, "lib", "f.ts")]);
    expect(r.code).toBe(1);
    const shown = relative(process.cwd(), join(folder, "lib", "f.ts"));
    expect(r.stderr).toContain(`${shown}:1:16 cannot import "fs"`);
    expect(r.stderr).toContain("main.ts: 1 error");

    const outside = await svc(["strategy", "check", entry, join(dir, "strategy.ts")]);
    expect(outside.code).toBe(2);
    expect(outside.stderr).toContain("is not in or below");
  });

  it("push uploads the code as the bot's next version, once; a file that does not check uploads nothing", async () => {
    const created = await call(p.url, "POST", "/bots", {
      name: "Pushed",
      kind: "trading",
      strategy: { family: "ma_crossover", parameters: { fast: 5, slow: 20 } },
    });
    expect(created.status).toBe(201);
    const file = join(dir, "strategy.ts");
    // A platform whose checker thread is still starting answers 429: push tries again.
    const pushed = await svc(["strategy", "push", "pushed", file]);
    expect(pushed.stderr).not.toContain("svc: 4");
    expect(pushed.code).toBe(0);
    expect(pushed.stdout).toMatch(/^pushed: version 2, strategy sha256:[0-9a-f]{64}\n$/);
    const served = await call(p.url, "GET", "/bots/pushed/versions/2/strategy");
    expect(served.body.code.files).toEqual([
      { path: "strategy.ts", content: await readFile(file, "utf8") },
    ]);

    const shown = await svc(["bots", "show", "pushed"]);
    expect(shown.stdout).toMatch(/^strategy +code sha256:[0-9a-f]{64} \(strategy\.ts\)$/m);

    const same = await svc(["strategy", "push", "pushed", file]);
    expect(same.stdout).toMatch(/^pushed: unchanged, version 2 already runs sha256:/);

    const broken = join(dir, "broken.ts");
    await writeFile(broken, (await readFile(file, "utf8")).replace("ctx.target(", "ctx.targett("));
    const refused = await svc(["strategy", "push", "pushed", broken]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/broken\.ts:\d+:\d+ Property 'targett' does not exist/);
    expect(refused.stderr).toContain("nothing was uploaded");
    expect((await call(p.url, "GET", "/bots/pushed")).body.current_version).toBe(2);
  });

  it("push --param sets declared parameters, keeps the code's parameters, and shows the platform's refusal of a bad one", async () => {
    const file = join(dir, "strategy.ts");
    const created = await call(p.url, "POST", "/bots", {
      name: "Params Pushed",
      kind: "trading",
      strategy: { family: "ma_crossover", parameters: { fast: 5, slow: 20 } },
    });
    expect(created.status).toBe(201);
    const first = await svc(["strategy", "push", "params-pushed", file, "--param", "fast=12"]);
    expect(first.stderr).toBe("");
    expect(first.code).toBe(0);
    const bot = async () => (await call(p.url, "GET", "/bots/params-pushed")).body;
    // The family's slow is not carried over to the code: only what --param gives.
    expect((await bot()).spec.strategy.parameters).toEqual({ fast: 12 });

    const second = await svc(["strategy", "push", "params-pushed", file, "--param", "weight=0.5"]);
    expect(second.code).toBe(0);
    expect((await bot()).spec.strategy.parameters).toEqual({ fast: 12, weight: 0.5 });

    const bad = await svc(["strategy", "push", "params-pushed", file, "--param", "slow=1001"]);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toBe(
      "svc: 400 invalid_parameter: strategy.parameters.slow is 1001: it is declared an integer from 3 to 1000\n",
    );
    expect((await bot()).current_version).toBe(3);

    const malformed = await svc(["strategy", "push", "params-pushed", file, "--param", "=3"]);
    expect(malformed.code).toBe(2);
    expect(malformed.stderr).toContain("give name=value");
  });

  it("push uploads a Python file as a Python strategy; one that does not compile uploads nothing", async () => {
    const file = join(dir, "strategy.py");
    await writeFile(file, "def on_bar(ctx):\n    ctx.target(ctx.symbols[0], weight=1)\n");
    const pushed = await svc(["strategy", "push", "pushed", file]);
    expect(pushed.stderr).toBe("");
    expect(pushed.stdout).toMatch(/^pushed: version 3, strategy sha256:[0-9a-f]{64}\n$/);
    const bot = await call(p.url, "GET", "/bots/pushed");
    expect(bot.body.spec.strategy.code).toMatchObject({
      language: "python",
      files: [{ path: "strategy.py" }],
    });

    const broken = join(dir, "broken.py");
    await writeFile(broken, "def on_bar(ctx):\n    ctx.target(\n");
    const refused = await svc(["strategy", "push", "pushed", broken]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/^broken\.py:2:\d+ SyntaxError: /m);
    expect((await call(p.url, "GET", "/bots/pushed")).body.current_version).toBe(3);
  });
});
