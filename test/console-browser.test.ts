import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";
import { chromium, type Browser, type Page } from "playwright-core";
import { generate } from "otplib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MFA_ACR } from "@svc/lib/auth";
import type { RunningPlatform } from "@svc/all-in-one";
import { call, PLATFORM_START_TIMEOUT_MS, startTestPlatform } from "./support/test-platform.js";
import { eventually } from "./support/until.js";
import { createCodeBot } from "./support/strategy-code.js";
import { MA_CROSSOVER_EXAMPLE } from "@svc/strategy-sdk/check";
import { startOidcPlatform, testUser, type OidcPlatform } from "./support/oidc-platform.js";

/**
 * The operator console in a real browser (Debian's chromium driven by playwright-core) against a
 * real platform: what an operator does with it, and axe-core on every screen. Screenshots land in
 * test-results/console/ so CI keeps them.
 */
const CHROMIUM = [process.env.SVC_TEST_CHROMIUM, "/usr/bin/chromium", "/usr/bin/chromium-browser"]
  .filter((p): p is string => !!p)
  .find((p) => existsSync(p));
const SHOTS = fileURLToPath(new URL("../test-results/console/", import.meta.url));
const AXE = readFileSync(createRequire(import.meta.url).resolve("axe-core/axe.min.js"), "utf8");
const WAIT_MS = 20_000;

/** axe-core on the screen as it stands: no serious or critical violation; then a screenshot. */
async function checkScreen(page: Page, name: string) {
  if (!(await page.evaluate("typeof window.axe !== 'undefined'"))) await page.evaluate(AXE);
  const violations = (await page.evaluate(
    `axe.run(document, { resultTypes: ["violations"] }).then((r) => r.violations
      .filter((v) => v.impact === "serious" || v.impact === "critical")
      .map((v) => ({ id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.map((n) => n.html.slice(0, 120)) })))`,
  )) as unknown[];
  await page.screenshot({ path: `${SHOTS}${name}.png`, fullPage: true });
  expect(violations, `axe on ${name}`).toEqual([]);
}

/** One build per run: a no-op when console/dist is newer than its sources. */
function ensureBuilt() {
  const built = spawnSync(process.execPath, ["console/scripts/ensure-build.mjs"], {
    cwd: fileURLToPath(new URL("..", import.meta.url)),
    encoding: "utf8",
  });
  expect(built.status, built.stderr).toBe(0);
  mkdirSync(SHOTS, { recursive: true });
}

const launch = () =>
  chromium.launch({ executablePath: CHROMIUM, args: ["--no-sandbox", "--disable-gpu"] });

// Without a browser there is nothing to drive; CI installs one (.ci/run), so there it always runs.
describe.skipIf(!CHROMIUM)("operator console in a browser", () => {
  let p: RunningPlatform;
  let browser: Browser;
  let page: Page;

  beforeAll(async () => {
    ensureBuilt();
    [p, browser] = await Promise.all([
      startTestPlatform("pglite", { SVC_KILLSWITCH_POLL_INTERVAL_S: "1" }),
      launch(),
    ]);
    page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    page.setDefaultTimeout(WAIT_MS);
  }, PLATFORM_START_TIMEOUT_MS);

  afterAll(async () => {
    await browser?.close();
    await p?.close();
  });

  /** Pixels of the equity line's colour on the chart's canvas: the curve was drawn, not only axes. */
  const linePixels = () =>
    page.evaluate(`(() => {
      const c = document.querySelector(".equity canvas");
      if (!c) return 0;
      const d = c.getContext("2d").getImageData(0, 0, c.width, c.height).data;
      let n = 0;
      for (let i = 0; i < d.length; i += 4)
        if (d[i + 3] > 200 && Math.abs(d[i] - 31) < 40 && Math.abs(d[i + 1] - 78) < 40 && Math.abs(d[i + 2] - 156) < 40) n++;
      return n;
    })()`) as Promise<number>;

  const go = async (path: string, heading: string) => {
    await page.goto(`${p.url}${path}`);
    await page.getByRole("heading", { level: 1, name: heading }).waitFor();
  };

  const actAs = async (user: string) => {
    await page.getByLabel("Act as").fill(user);
    await page.getByRole("button", { name: "Set", exact: true }).click();
    await page
      .getByText(`Signed in as ${user === "" ? "local|default" : `local|${user}`}`)
      .waitFor();
  };

  it(
    "creates a bot, backtests it and draws its equity curve, drawdown and trades",
    { timeout: 40_000 },
    async () => {
      await go("/", "Bots");
      await checkScreen(page, "bots-empty");
      await page.getByText("New bot").click();
      await page.getByLabel("Name", { exact: true }).fill("Console Alpha");
      await page.getByLabel("Fleet", { exact: true }).fill("majors");
      await page.getByRole("button", { name: /^Create/ }).click();
      await page.getByRole("heading", { level: 1, name: "Console Alpha" }).waitFor();
      expect(new URL(page.url()).pathname).toBe("/console/bots/console-alpha");

      await page.getByRole("button", { name: "Start backtest" }).click();
      await page.locator("tr[data-deployment]", { hasText: "success" }).first().waitFor();
      await page.locator(".equity .plot[data-series='1'] canvas").first().waitFor();
      await page.locator("table.trades tbody tr").first().waitFor();
      expect(await linePixels()).toBeGreaterThan(50);
      const trades = (await call(p.url, "GET", "/bots/console-alpha/deployments")).body.items[0];
      expect(trades.status).toBe("success");
      await checkScreen(page, "bot-backtest");

      // Back on the list, the bot shows with its status and a clear kill switch.
      await page.getByRole("link", { name: "Bots", exact: true }).click();
      const row = page.locator("#bots-table tbody tr", { hasText: "Console Alpha" });
      await row.getByText("clear").waitFor();
      expect(await row.textContent()).toContain("majors");
      await checkScreen(page, "bots");
    },
  );

  it(
    "shows a code version's source read-only with its digest, and a failed run's strategy error with its stack",
    { timeout: 60_000 },
    async () => {
      const bot = await createCodeBot(p.url, "Console Code");
      const digest: string = bot.spec.strategy.code.digest;
      // Version 2 throws once it has enough bars: its backtest fails strategy_error.
      const throws = MA_CROSSOVER_EXAMPLE.replace(
        "if (bars.length < slow) continue;",
        'if (bars.length < slow) continue;\n      throw new RangeError("console boom");',
      );
      const put = await call(p.url, "PUT", "/bots/console-code", {
        spec: {
          ...bot.spec,
          strategy: { code: { files: [{ path: "strategy.ts", content: throws }] } },
        },
      });
      expect(put.status, put.text).toBe(200);
      const started = await call(p.url, "POST", "/bots/console-code/backtest", {
        data_source: "csv:sample-btc-usd-1d",
      });
      expect(started.status).toBe(202);

      await go("/console/bots/console-code", "Console Code");
      await page.getByRole("button", { name: "Show source of version 1" }).click();
      const source = page.locator("section.strategy-source[data-version='1']");
      await source.locator("code.digest", { hasText: digest }).waitFor();
      const shown = await source.locator(".source-file pre").textContent();
      expect(shown).toBe(MA_CROSSOVER_EXAMPLE);
      // Read-only: the source is text, not a field anyone could edit.
      expect(await source.locator("textarea, input, [contenteditable]").count()).toBe(0);
      await checkScreen(page, "bot-strategy-source");

      const failed = page.locator("tr[data-deployment]", { hasText: "failed" });
      await failed
        .locator("code.failure-code", { hasText: "strategy_error" })
        .waitFor({ timeout: 40_000 });
      expect(await failed.textContent()).toContain("RangeError: console boom");
      await failed.getByText("Strategy stack").click();
      const stack = failed.locator("details pre");
      await stack.waitFor();
      // The stack names the uploaded file's line of the throw, not the bundle's.
      const line = throws.split("\n").findIndex((l) => l.includes("console boom")) + 1;
      expect(await stack.textContent()).toMatch(new RegExp(`^at .*strategy\\.ts:${line}:\\d+`));
      await checkScreen(page, "bot-strategy-failure");
    },
  );

  it("refuses the submitter's own approval (four eyes) and approves as a second user", async () => {
    const bot = (await call(p.url, "GET", "/bots/console-alpha")).body;
    const submitted = await call(
      p.url,
      "POST",
      "/promotion/requests",
      {
        request_id: "console-1",
        kind: "strategy",
        artifact: { bot_ref: "console-alpha", version: 1, version_hash: bot.spec_hash },
        validation: { verdict: "PASS" },
        risk: { decision: "APPROVE" },
        evidence: {
          deflated_sharpe_ratio: 0.97,
          probability_of_backtest_overfitting: 0.1,
          trial_count: 1,
        },
      },
      { "x-svc-local-user": "alice" },
    );
    expect(submitted.status, submitted.text).toBe(201);

    await go("/console/approvals", "Approvals");
    await actAs("alice");
    const card = page.locator("article[data-request='console-1']");
    await card.getByText("0.97").waitFor();
    await card.getByRole("button", { name: "Approve" }).click();
    const refusal = card.getByRole("alert");
    await refusal.getByText("four_eyes_violation").waitFor();
    expect(await refusal.textContent()).toContain("403");
    await checkScreen(page, "approvals-four-eyes");

    await actAs("bob");
    await card.getByRole("button", { name: "Approve" }).click();
    await card
      .getByRole("status")
      .getByText(/approved|promoted/)
      .waitFor();
    await checkScreen(page, "approvals-approved");
    const decided = await call(p.url, "GET", "/promotion/requests/console-1");
    expect(decided.body.decisions.map((d: { actor: string }) => d.actor)).toContain("local|bob");
  });

  it(
    "starts a paper session, engages the platform switch: it drains and stops; release restarts it",
    { timeout: 40_000 },
    async () => {
      await eventually(
        "promotion console-1 is promoted",
        () => call(p.url, "GET", "/promotion/requests/console-1"),
        (r) => r.body.status === "promoted",
      );
      // Same tab: the approval left the token in sessionStorage for the bot's paper form.
      await go("/console/bots/console-alpha", "Console Alpha");
      expect(await page.getByLabel("ApprovedPromotion token").inputValue()).not.toBe("");
      await page.getByRole("button", { name: "Start paper session" }).click();
      await page.locator("#live-phase", { hasText: "Running" }).waitFor();
      await page.locator("#events-table tbody tr").first().waitFor();
      await checkScreen(page, "bot-paper-running");

      await go("/console/kill-switch", "Kill switch");
      await checkScreen(page, "kill-switch");
      await page.getByLabel("Scope").selectOption("platform");
      await page.getByLabel("Mode").selectOption("cancel");
      await page.getByLabel("Reason").fill("console test");
      await page.getByRole("button", { name: "Engage…" }).click();
      const dialog = page.getByRole("dialog");
      await dialog.getByText("Engage platform switch on platform?").waitFor();
      await checkScreen(page, "kill-switch-confirm");
      await dialog.getByRole("button", { name: "Engage", exact: true }).click();
      await page.locator("#ks-table tbody tr", { hasText: "console test" }).waitFor();

      await go("/console/bots/console-alpha", "Console Alpha");
      await page.locator("#live-phase", { hasText: "Stopped" }).waitFor();
      await page.locator("tr[data-deployment]", { hasText: "parked by a kill switch" }).waitFor();
      await page.locator("#bot-phase + dt + dd .badge.bad").waitFor();
      await checkScreen(page, "bot-paper-halted");

      await go("/console/kill-switch", "Kill switch");
      await page.getByRole("button", { name: "Release console-platform-platform" }).click();
      await page.getByRole("dialog").getByRole("button", { name: "Release", exact: true }).click();
      await page.locator("#ks-none").waitFor();

      await go("/console/bots/console-alpha", "Console Alpha");
      await page.locator("#live-phase", { hasText: "Running" }).waitFor();
      await page.locator("tr[data-deployment]", { hasText: "running" }).first().waitFor();
      await checkScreen(page, "bot-paper-restarted");
    },
  );

  it(
    "runs a drill with its timings, then halts everything and lists what each route stopped",
    { timeout: 60_000 },
    async () => {
      await go("/console/kill-switch", "Kill switch");
      await page.getByRole("button", { name: "Run a drill…" }).click();
      await page.getByRole("dialog").getByRole("button", { name: "Run drill" }).click();
      // The drill engages, times the running session to Draining and Stopped, releases, judges.
      const drill = page.locator("#drills-table tbody tr", { hasText: "finished" }).first();
      await drill.waitFor({ timeout: 40_000 });
      expect(await drill.textContent()).toMatch(/pass.*1.*\d+ ms/);
      await checkScreen(page, "kill-switch-drill");

      await page.getByRole("button", { name: "Halt all…" }).click();
      await page.getByRole("dialog").getByRole("button", { name: "Halt all" }).click();
      const halted = page.locator("#fan-out-table tbody tr", { hasText: "/bots/halt-all" });
      await halted.waitFor();
      expect(await page.locator("#fan-out-table tbody tr").count()).toBe(6);
      expect(await halted.textContent()).toMatch(/200\s*1\s*\d+ ms/);
      await checkScreen(page, "kill-switch-fan-out");
      expect(
        (await call(p.url, "GET", "/bots/console-alpha/deployments")).body.items[0],
      ).toMatchObject({ target: "paper", status: "halted", parked: false });
    },
  );

  it(
    "shows the agent switches Halt all engaged, and releases each after a confirmation",
    { timeout: 40_000 },
    async () => {
      // The previous test's Halt all engaged both; they stay engaged until released.
      await go("/console/kill-switch", "Kill switch");
      const row = (scope: string) => page.locator(`#agents-table tr[data-agent-switch='${scope}']`);
      for (const scope of ["agents", "quant_agents"]) {
        await row(scope).locator(".badge.bad", { hasText: "engaged" }).waitFor();
        expect(await row(scope).textContent()).toContain("halt-all from the console");
        // Who engaged it: the previous test acted as bob.
        expect(await row(scope).textContent()).toContain("by local|bob");
      }
      await checkScreen(page, "kill-switch-agents-engaged");

      await row("agents").getByRole("button", { name: "Release agents" }).click();
      const dialog = page.getByRole("dialog");
      await dialog.getByText("Release the agents switch?").waitFor();
      await checkScreen(page, "kill-switch-agents-confirm");
      // Cancelling releases nothing.
      await dialog.getByRole("button", { name: "Cancel" }).click();
      expect((await call(p.url, "GET", "/agents/halt")).body.items[0]).toMatchObject({
        scope: "agents",
        engaged: true,
      });
      await row("agents").getByRole("button", { name: "Release agents" }).click();
      await dialog.getByRole("button", { name: "Release", exact: true }).click();
      await page.locator("#agents-note", { hasText: "Released the agents switch." }).waitFor();
      await row("agents").locator(".badge.ok", { hasText: "clear" }).waitFor();
      // The quant agents switch stays until released on its own.
      expect(await row("quant_agents").locator(".badge.bad").count()).toBe(1);

      await row("quant_agents").getByRole("button", { name: "Release quant agents" }).click();
      await dialog.getByText("Release the quant agents switch?").waitFor();
      await dialog.getByRole("button", { name: "Release", exact: true }).click();
      await row("quant_agents").locator(".badge.ok", { hasText: "clear" }).waitFor();
      await checkScreen(page, "kill-switch-agents-released");
      const state = (await call(p.url, "GET", "/agents/halt")).body;
      expect(
        state.items.map((a: { scope: string; engaged?: boolean }) => [a.scope, !!a.engaged]),
      ).toEqual([
        ["agents", false],
        ["quant_agents", false],
      ]);
      const audited = await call(
        p.url,
        "GET",
        "/admin/audit-events?action=killswitch.agents.released",
      );
      expect(audited.body.items.length).toBeGreaterThan(0);
    },
  );

  it("uploads a dataset (a bad line refused by its number), and knows its own routes", async () => {
    await go("/console/datasets", "Datasets");
    await page.locator("table tbody tr", { hasText: "sample-btc-usd-1d" }).waitFor();
    const bars = (rows: string[]) =>
      Buffer.from(["timestamp,open,high,low,close,volume", ...rows].join("\n") + "\n");
    const good = Array.from({ length: 40 }, (_, i) => {
      const t = new Date(Date.UTC(2024, 0, 1 + i)).toISOString().slice(0, 10);
      return `${t},${100 + i},${102 + i},${99 + i},${101 + i},1000`;
    });
    const upload = async (name: string, csv: Buffer) => {
      await page.getByLabel("Name").fill(name);
      await page.getByLabel("Symbol").fill("ETH-USD");
      await page.getByLabel("Timeframe").fill("1d");
      await page
        .getByLabel("CSV file")
        .setInputFiles({ name: `${name}.csv`, mimeType: "text/csv", buffer: csv });
      await page.getByRole("button", { name: "Upload" }).click();
    };
    // A bad line is refused with its number, shown as the platform said it.
    await upload("eth-bad", bars([...good.slice(0, 5), "2024-01-06,100,90,99,101,1000"]));
    await page.getByRole("alert").getByText("malformed_csv").waitFor();
    expect(await page.getByRole("alert").textContent()).toContain("line 7");
    await upload("eth-1d", bars(good));
    await page.locator("table tbody tr", { hasText: "csv:eth-1d" }).waitFor();
    await checkScreen(page, "datasets");
    await go("/console/nowhere", "Not found");
    // The API keeps its JSON 404 for everything outside the console's paths.
    const api404 = await call(p.url, "GET", "/nowhere");
    expect(api404.body.error.code).toBe("route_not_found");
  });
});

describe.skipIf(!CHROMIUM)("operator console in a browser, OIDC sign-in and step-up", () => {
  const SCOPES = [
    "read:bots",
    "write:bots",
    "submit:promotion",
    "read:promotion",
    "approve:promotion",
    "read:killswitch",
    "halt:platform",
  ];
  const alice = testUser("alice", SCOPES);
  const bob = testUser("bob", SCOPES);
  let o: OidcPlatform;
  let browser: Browser;
  let page: Page;

  beforeAll(async () => {
    ensureBuilt();
    [o, browser] = await Promise.all([startOidcPlatform("pglite", [alice, bob]), launch()]);
    page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    page.setDefaultTimeout(WAIT_MS);
  }, PLATFORM_START_TIMEOUT_MS);
  afterAll(async () => {
    await browser?.close();
    await o?.close();
  });

  /**
   * The development provider's pages, as a person fills them: password, then the code if asked.
   * The provider refuses a code twice, so a second MFA sign-in in the same 30 s step uses the
   * next step's code (within the provider's window), as an authenticator a moment later would.
   */
  const usedSteps = new Map<string, number>();
  async function providerSignIn(user: typeof bob, mfa: boolean) {
    await page.getByLabel("Username").fill(user.username);
    await page.getByLabel("Password").fill(user.password);
    await page.getByRole("button", { name: "Sign in" }).click();
    if (mfa) {
      const step = Math.max(
        Math.floor(Date.now() / 30_000),
        (usedSteps.get(user.username) ?? -1) + 1,
      );
      usedSteps.set(user.username, step);
      const code = await generate({ secret: user.totpSecret, epoch: step * 30 });
      await page.getByLabel("6-digit code").fill(code);
      await page.getByRole("button", { name: "Verify" }).click();
    }
  }

  it(
    "signs in through the provider, answers a step-up challenge with MFA, and approves",
    { timeout: 60_000 },
    async () => {
      const token = await o.tokens.user("alice");
      const auth = { authorization: `Bearer ${token}` };
      const bot = await call(
        o.p.url,
        "POST",
        "/bots",
        { name: "Oidc Bot", kind: "trading", strategy: { family: "ma_crossover" } },
        auth,
      );
      expect(bot.status, bot.text).toBe(201);
      const submitted = await call(
        o.p.url,
        "POST",
        "/promotion/requests",
        {
          request_id: "oidc-1",
          kind: "strategy",
          artifact: { bot_ref: "oidc-bot", version: 1, version_hash: bot.body.spec_hash },
          validation: { verdict: "PASS" },
          risk: { decision: "APPROVE" },
        },
        auth,
      );
      expect(submitted.status, submitted.text).toBe(201);

      // Signed out: whoami answers 401 and the console offers the sign-in, back to this page.
      await page.goto(`${o.p.url}/console/approvals`);
      await page.getByRole("link", { name: "Sign in", exact: true }).first().click();
      await providerSignIn(bob, false);
      await page.getByText("Signed in as dev|bob").waitFor();
      expect(new URL(page.url()).pathname).toBe("/console/approvals");
      expect(new URL(page.url()).hash).toBe("");
      expect(await page.evaluate("sessionStorage.getItem('svc.console.token')")).toBeTruthy();

      // Approving needs a fresh second factor: the challenge is shown with its way out.
      const card = page.locator("article[data-request='oidc-1']");
      await card.getByRole("button", { name: "Approve" }).click();
      await card.getByRole("alert").getByText("insufficient_user_authentication").waitFor();
      const stepUp = card.getByRole("link", { name: "Sign in again with MFA" });
      const href = new URL((await stepUp.getAttribute("href"))!, o.p.url);
      expect(href.pathname).toBe("/auth/login");
      expect(Object.fromEntries(href.searchParams)).toMatchObject({
        return_to: "/console/approvals",
        acr_values: MFA_ACR,
        max_age: "0",
      });
      await checkScreen(page, "oidc-step-up");
      await stepUp.click();
      await providerSignIn(bob, true);
      await page.getByText("Signed in as dev|bob").waitFor();
      await card.getByRole("button", { name: "Approve" }).click();
      await card
        .getByRole("status")
        .getByText(/approved|promoted/)
        .waitFor();
      await checkScreen(page, "oidc-approved");
      const decided = await call(o.p.url, "GET", "/promotion/requests/oidc-1", undefined, auth);
      expect(decided.body.decisions.at(-1)).toMatchObject({ actor: "dev|bob", action: "approve" });
    },
  );

  it(
    "releases an agent switch only with a fresh second factor, as DELETE /agents/halt demands",
    { timeout: 60_000 },
    async () => {
      const operator = { authorization: `Bearer ${await o.tokens.user("alice", { mfa: true })}` };
      const halted = await call(
        o.p.url,
        "POST",
        "/agents/halt",
        { reason: "oidc drill" },
        operator,
      );
      expect(halted.status, halted.text).toBe(200);
      // Bob signed in with a password only: he sees the switch, and its release asks for MFA.
      const passwordOnly = await o.tokens.user("bob", { fresh: true });
      await page.goto(`${o.p.url}/console/kill-switch`);
      await page.evaluate(
        `sessionStorage.setItem('svc.console.token', ${JSON.stringify(passwordOnly)})`,
      );
      await page.goto(`${o.p.url}/console/kill-switch`);
      const row = page.locator("#agents-table tr[data-agent-switch='agents']");
      await row.getByText("oidc drill").waitFor();
      expect(await row.textContent()).toContain("by dev|alice");
      await row.getByRole("button", { name: "Release agents" }).click();
      await page.getByRole("dialog").getByRole("button", { name: "Release", exact: true }).click();
      const section = page.locator("section[aria-labelledby='ks-agents']");
      await section.getByRole("alert").getByText("insufficient_user_authentication").waitFor();
      await checkScreen(page, "oidc-agents-step-up");
      const stepUp = section.getByRole("link", { name: "Sign in again with MFA" });
      const href = new URL((await stepUp.getAttribute("href"))!, o.p.url);
      expect(Object.fromEntries(href.searchParams)).toMatchObject({
        return_to: "/console/kill-switch",
        acr_values: MFA_ACR,
      });
      expect(
        (await call(o.p.url, "GET", "/agents/halt", undefined, operator)).body.items[0],
      ).toMatchObject({ scope: "agents", engaged: true });

      await stepUp.click();
      await providerSignIn(bob, true);
      await page.getByText("Signed in as dev|bob").waitFor();
      await row.getByRole("button", { name: "Release agents" }).click();
      await page.getByRole("dialog").getByRole("button", { name: "Release", exact: true }).click();
      await row.locator(".badge.ok", { hasText: "clear" }).waitFor();
      const state = (await call(o.p.url, "GET", "/agents/halt", undefined, operator)).body;
      expect(state.items[0]).toMatchObject({ scope: "agents", engaged: false });
    },
  );
});
