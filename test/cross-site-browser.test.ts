import { createServer, type Server } from "node:http";
import { existsSync } from "node:fs";
import type { AddressInfo } from "node:net";
import { chromium, type Browser, type Response } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunningPlatform } from "@svc/all-in-one";
import { approvedSession, as } from "./support/paper.js";
import { eventually } from "./support/until.js";
import { call, PLATFORM_START_TIMEOUT_MS, startTestPlatform } from "./support/test-platform.js";

/**
 * A web page on another origin, in a real browser, against `npm start`'s local auth (every
 * scope, fresh MFA, no credential to steal): it tries the writes a browser sends without asking
 * the platform first, and none of them may land.
 */
const CHROMIUM = [process.env.SVC_TEST_CHROMIUM, "/usr/bin/chromium", "/usr/bin/chromium-browser"]
  .filter((p): p is string => !!p)
  .find((p) => existsSync(p));

/** The writes that matter most: every halt, a drill (it engages the platform switch), an approval. */
const WRITES = (bot: string, request: string) => [
  "/bots/halt-all",
  `/bots/${bot}/halt`,
  "/paper/stop-all",
  "/agents/halt",
  "/quant-agents/halt",
  "/rl/halt-all",
  "/workflows/halt",
  "/kill-switch/drills",
  `/promotion/requests/${request}/approve`,
];

/**
 * The attacker's page: bodiless no-cors fetches, no-cors fetches with a text/plain body (what
 * sendBeacon sends), and HTML form posts (urlencoded and text/plain) into frames.
 */
function attackPage(target: string, paths: string[]): string {
  const forms = paths
    .flatMap((path, i) =>
      ["application/x-www-form-urlencoded", "text/plain"].map(
        (enctype, j) =>
          `<iframe name="f${i}-${j}"></iframe><form target="f${i}-${j}" method="post" enctype="${enctype}" action="${target}${path}"><input name="reason" value="x"></form>`,
      ),
    )
    .join("\n");
  return `<!doctype html><html><body>${forms}<script>
    const target = ${JSON.stringify(target)};
    const paths = ${JSON.stringify(paths)};
    window.attack = async () => {
      for (const form of document.forms) form.submit();
      await Promise.allSettled(paths.flatMap((p) => [
        fetch(target + p, { method: "POST", mode: "no-cors" }),
        fetch(target + p, { method: "POST", mode: "no-cors", body: '{"reason":"x"}' }),
        fetch(target + p, { method: "POST", mode: "no-cors", credentials: "include",
          headers: { "content-type": "application/json", "x-svc-request": "1" }, body: "{}" }),
      ]));
    };
  </script></body></html>`;
}

/** What the rebound page's script sends: same-origin to it, so JSON and custom headers go too. */
const REBOUND_ATTACK = `(paths) => Promise.all(paths.map((p) =>
  fetch(p, { method: "POST", headers: { "content-type": "application/json", "x-svc-request": "1" },
    body: '{"reason":"x"}' }).then(async (r) => ({ path: p, status: r.status, body: await r.text() }))))`;

describe.skipIf(!CHROMIUM)("a page on another origin, against local auth", () => {
  let p: RunningPlatform;
  let browser: Browser;
  let attacker: Server;
  let attackerUrl: string;
  let session: string;
  const REQUEST = "cross-site-1";

  beforeAll(async () => {
    [p, browser] = await Promise.all([
      startTestPlatform("pglite"),
      chromium.launch({
        executablePath: CHROMIUM,
        // evil.example resolves to loopback, as it does for a rebinding attacker's victim.
        args: ["--no-sandbox", "--disable-gpu", "--host-resolver-rules=MAP evil.example 127.0.0.1"],
      }),
    ]);
    // Running work the halts would stop, and a request pending a second person's approval.
    session = await approvedSession(p, "target-bot", "majors", 1);
    const bot = (await call(p.url, "GET", "/bots/target-bot")).body;
    const submitted = await call(
      p.url,
      "POST",
      "/promotion/requests",
      {
        request_id: REQUEST,
        kind: "strategy",
        artifact: { bot_ref: "target-bot", version: 1, version_hash: bot.spec_hash },
        validation: { verdict: "PASS" },
        risk: { decision: "APPROVE" },
      },
      as("alice"),
    );
    expect(submitted.body.status, submitted.text).toBe("pending");
    attacker = createServer((_req, res) => {
      res.writeHead(200, { "content-type": "text/html" });
      res.end(attackPage(p.url, WRITES("target-bot", REQUEST)));
    });
    await new Promise<void>((resolve) => attacker.listen(0, "127.0.0.1", resolve));
    attackerUrl = `http://127.0.0.1:${(attacker.address() as AddressInfo).port}/`;
  }, PLATFORM_START_TIMEOUT_MS);

  afterAll(async () => {
    await browser?.close();
    await new Promise((resolve) => attacker?.close(resolve));
    await p?.close();
  });

  /** Nothing any write would change has changed: the session runs, nothing engaged or approved. */
  async function nothingLanded() {
    const deployments = (await call(p.url, "GET", "/bots/target-bot/deployments")).body.items;
    expect(deployments.find((d: { task_id: string }) => d.task_id === session)?.status).toBe(
      "running",
    );
    const request = (await call(p.url, "GET", `/promotion/requests/${REQUEST}`)).body;
    expect(request.status).toBe("pending");
    expect(request.decisions ?? []).toEqual([]);
    expect((await call(p.url, "GET", "/kill-switch/drills")).body.items ?? []).toEqual([]);
    expect((await call(p.url, "GET", "/kill-switches")).body.items ?? []).toEqual([]);
    const agents = (await call(p.url, "GET", "/agents/halt")).body;
    expect(JSON.stringify(agents)).not.toMatch(/"(halted|engaged)":true/);
  }

  it("sends no-cors fetches and form posts to every halt, a drill and an approval: each is refused 403 and none lands", async () => {
    const page = await browser.newPage();
    // Read as each answer arrives: a frame's next navigation, or an opaque answer's end, drops it.
    const answers: Array<Promise<{ path: string; status: number; code?: string; type: string }>> =
      [];
    page.on("response", (r: Response) => {
      if (!r.url().startsWith(p.url)) return;
      const path = new URL(r.url()).pathname;
      const unreadable = { path, status: r.status(), type: "unreadable" };
      answers.push(
        r.text().then(
          (text) => {
            // An opaque answer's body is withheld: sometimes as a failed read, sometimes as "".
            try {
              const code = (JSON.parse(text) as { error?: { code?: string } }).error?.code;
              return { path, status: r.status(), code, type: r.request().resourceType() };
            } catch {
              return unreadable;
            }
          },
          () => unreadable,
        ),
      );
    });
    await page.goto(attackerUrl);
    await page.evaluate("window.attack()");
    const paths = WRITES("target-bot", REQUEST);
    // 3 fetches and 2 forms a path; the forms' frames load the answers as they come.
    const expected = paths.length * 5;
    await expect.poll(() => answers.length, { timeout: 20_000 }).toBeGreaterThanOrEqual(expected);
    const codes = await Promise.all(answers);
    await nothingLanded();
    // An opaque (no-cors) answer's body is hidden even from the browser's tools; its status is not.
    for (const answer of codes) {
      expect(answer.status, JSON.stringify(answer)).toBe(403);
      if (answer.type !== "unreadable")
        expect(["origin_not_allowed", "request_header_required"]).toContain(answer.code);
    }
    // The forms' answers, loaded into their frames, name why for every path.
    expect(new Set(codes.filter((c) => c.code).map((c) => c.path))).toEqual(new Set(paths));
    expect(new Set(codes.map((c) => c.path))).toEqual(new Set(paths));
    await page.close();
    await nothingLanded();
  });

  it("cannot act through DNS rebinding: a page of evil.example on the platform's port, its name now on 127.0.0.1, is refused", async () => {
    const page = await browser.newPage();
    // After the rebinding, evil.example's page (its origin http://evil.example:<port>) reaches
    // the platform by name. The browser then counts the page as loopback too, so its own
    // private-network checks let it through; a browser without them never had any.
    const rebound = `http://evil.example:${new URL(p.url).port}`;
    const landing = await page.goto(`${rebound}/console/`);
    expect(landing?.status()).toBe(403);
    const results = (await page.evaluate(
      `(${REBOUND_ATTACK})(${JSON.stringify(WRITES("target-bot", REQUEST))})`,
    )) as Array<{ path: string; status: number; body: string }>;
    expect(results).toHaveLength(WRITES("target-bot", REQUEST).length);
    for (const r of results) {
      expect(r.status, r.path).toBe(403);
      expect(JSON.parse(r.body).error.code).toBe("host_not_allowed");
    }
    // Nor can it read what the platform knows.
    const read = await page.evaluate(`fetch("/bots").then((r) => r.status)`);
    expect(read).toBe(403);
    await page.close();
    await nothingLanded();
  });

  it("still lets the platform's own console act (same origin): a bot halt lands", async () => {
    const page = await browser.newPage();
    await page.goto(`${p.url}/console/`);
    const status = await page.evaluate(
      `fetch("/bots/target-bot/halt", { method: "POST", headers: { "content-type": "application/json" }, body: '{"reason":"operator"}' }).then((r) => r.status)`,
    );
    expect(status).toBe(200);
    await page.close();
    await eventually(
      "the operator's halt stops the session",
      () => call(p.url, "GET", "/bots/target-bot/deployments"),
      (r) =>
        r.body.items.find((d: { task_id: string }) => d.task_id === session)?.status === "halted",
    );
  });
});
