import { execFile } from "node:child_process";
import { mkdtemp, readFile, writeFile } from "node:fs/promises";
import { createServer as createHttpServer } from "node:http";
import { createServer, type Server } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import type { Command } from "commander";
import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunningPlatform } from "@svc/all-in-one";
import {
  call,
  PLATFORM_START_TIMEOUT_MS,
  startTestPlatform,
} from "../../test/support/test-platform.js";
import { eventually } from "../../test/support/until.js";
import { processIo } from "./io.js";
import { buildFullProgram } from "./program.js";
import { svcIn } from "./testing.js";

const exec = promisify(execFile);
const root = fileURLToPath(new URL("../..", import.meta.url));
type Failed = { code: number; stdout: string; stderr: string };

// One platform for the file: the tests run in order and build on each other (the bots the first
// creates are backtested, promoted and paper-traded by the next), as a person would use svc.
describe("svc", () => {
  let p: RunningPlatform;
  const svc = (args: string[], t: Parameters<typeof svcIn>[2] = {}) => svcIn(p.url, args, t);
  const db = () => p.platform.db.db;

  beforeAll(async () => {
    p = await startTestPlatform("pglite");
  }, PLATFORM_START_TIMEOUT_MS);
  afterAll(async () => {
    await p?.close();
  });

  /** Waits until the promotion service has heard of the bot (from the bots service's events). */
  const promotionKnows = (slug: string) =>
    eventually(
      `the promotion service learns of ${slug}`,
      async () =>
        (
          await sql<{
            n: number;
          }>`select count(*)::int as n from promotion.known_bot_versions where slug = ${slug}`.execute(
            db(),
          )
        ).rows[0]!.n,
      (n) => n > 0,
    );

  it("creates, lists and shows bots, in tables for people and the API's JSON with --json", async () => {
    const created = await svc([
      "bots",
      "create",
      "--name",
      "Alpha MA",
      "--fleet",
      "majors",
      "--family",
      "ma_crossover",
      "--param",
      "fast=10",
      "--param",
      "slow=30",
      "--position-size",
      "0.5",
    ]);
    expect(created).toMatchObject({ code: 0, stderr: "" });
    expect(created.stdout).toMatch(/^created alpha-ma \(id [0-9a-f-]{36}\), version 1, draft\n$/);
    const served = await call(p.url, "GET", "/bots/alpha-ma");
    expect(served.body.spec).toMatchObject({
      fleet: "majors",
      strategy: { family: "ma_crossover", parameters: { fast: 10, slow: 30 } },
      engine: { position_size: 0.5 },
    });

    // A spec file, with a flag overriding its name.
    const dir = await mkdtemp(join(tmpdir(), "svc-cli-"));
    const file = join(dir, "beta.json");
    await writeFile(
      file,
      JSON.stringify({
        name: "ignored",
        kind: "trading",
        strategy: { family: "breakout", parameters: {} },
      }),
    );
    const fromFile = await svc(["--json", "bots", "create", "--file", file, "--name", "Beta"]);
    expect(fromFile.code).toBe(0);
    expect(JSON.parse(fromFile.stdout)).toMatchObject({ slug: "beta", kind: "trading" });

    const list = await svc(["bots", "list"]);
    expect(list.code).toBe(0);
    const lines = list.stdout.trim().split("\n");
    expect(lines[0]).toMatch(/^SLUG +NAME +KIND +STATUS +VERSION +FLEET$/);
    expect(lines.slice(1).map((l) => l.split(/ {2,}/))).toEqual([
      ["alpha-ma", "Alpha MA", "trading", "draft", "1", "majors"],
      ["beta", "Beta", "trading", "draft", "1", "-"],
    ]);
    const listJson = await svc(["bots", "list", "--json"]);
    expect(JSON.parse(listJson.stdout)).toEqual((await call(p.url, "GET", "/bots")).body);

    const show = await svc(["bots", "show", "alpha-ma"]);
    expect(show.code).toBe(0);
    expect(show.stdout).toMatch(/^bot +Alpha MA \(alpha-ma\)$/m);
    expect(show.stdout).toMatch(/^strategy +ma_crossover fast=10 slow=30$/m);
    expect(show.stdout).toMatch(/^fleet +majors$/m);
    expect(show.stdout).toContain("no deployments");
    const showJson = await svc(["--json", "bots", "show", "alpha-ma"]);
    expect(JSON.parse(showJson.stdout)).toEqual((await call(p.url, "GET", "/bots/alpha-ma")).body);
  });

  it("backtest --watch follows a backtest to its end and prints its figures", async () => {
    const r = await svc(["backtest", "alpha-ma", "--data-source", "synthetic:7", "--watch"]);
    expect(r.code, r.stderr).toBe(0);
    const deployments = (await call(p.url, "GET", "/bots/alpha-ma/deployments")).body.items;
    const done = deployments[0];
    expect(done.status).toBe("success");
    expect(r.stdout).toMatch(/^status +success$/m);
    expect(r.stdout).toContain(`deployment    ${done.id}`);
    expect(r.stdout).toMatch(/^data source +synthetic:7$/m);
    const pct = `${(done.result_summary.total_return * 100).toFixed(2)}%`;
    expect(r.stdout).toMatch(new RegExp(`^total return +${pct.replace(".", "\\.")}$`, "m"));
    // Not a terminal: plain lines on stderr, the last one the end.
    expect(r.stderr.trim().split("\n").at(-1)).toMatch(/^success(  100%  [\d,]+\/[\d,]+ bars)?/);

    // Without --watch it answers at once; --json prints the accepted deployment.
    const accepted = await svc(["--json", "backtest", "alpha-ma"]);
    expect(accepted.code).toBe(0);
    expect(JSON.parse(accepted.stdout)).toMatchObject({ target: "backtest", status: "pending" });
    const show = await svc(["bots", "show", "alpha-ma"]);
    expect(show.stdout).toMatch(/^DEPLOYMENT +TARGET +STATUS +TASK +VER +CREATED +SUMMARY$/m);
    expect(show.stdout).toContain(`${done.id}  backtest  success`);
  });

  it("backtest --watch draws a progress bar on a terminal and exits 1 when the backtest fails", async () => {
    // The engine runs the bundled bars in milliseconds, so the test sets the row as a slow run
    // would leave it (progress, then failure) between the command's polls, after the real run ended.
    let id = "";
    const r = await svc(["backtest", "alpha-ma", "--watch", "--interval", "50"], {
      stderrIsTTY: true,
      onSleep: async (n) => {
        if (n === 1) {
          const row = await eventually(
            "the backtest ends",
            async () =>
              (
                await sql<{
                  id: string;
                  status: string;
                }>`select id, status from bots.bot_deployments where target = 'backtest' order by created_at desc limit 1`.execute(
                  db(),
                )
              ).rows[0],
            (row) => row?.status === "success",
          );
          id = row!.id;
          await sql`update bots.bot_deployments set status = 'running', bars_done = 400, bars_total = 1000,
                    started_at = now() - interval '2 seconds', result_summary = null,
                    host = 'elsewhere:1:cli-test', host_seen_at = now() where id = ${id}`.execute(
            db(),
          );
        } else if (n === 2) {
          await sql`update bots.bot_deployments set status = 'failed', error = 'engine stopped: out of memory'
                    where id = ${id}`.execute(db());
        }
      },
    });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/\r\[#{12}\.{18}\]  40%  400\/1,000 bars  elapsed \d+s  eta \d+s/);
    expect(r.stderr).toMatch(/svc: backtest failed: engine stopped: out of memory\n$/);
    expect(r.stdout).toMatch(/^status +failed$/m);
    expect(r.stdout).toMatch(/^error +engine stopped: out of memory$/m);
  });

  it("promote, approve (four eyes) and reject, then a paper session from the approval, stopped", async () => {
    await promotionKnows("alpha-ma");
    const submitted = await svc(
      ["promote", "alpha-ma", "--verdict", "PASS", "--risk", "APPROVE", "--request-id", "alpha-1"],
      { as: "alice" },
    );
    expect(submitted.code, submitted.stderr).toBe(0);
    expect(submitted.stdout).toMatch(/^status +pending$/m);
    expect(submitted.stdout).toMatch(/^requested by +local\|alice$/m);
    expect(submitted.stdout).toMatch(/^kill_switch_clear +yes +no kill switch engaged$/m);
    expect((await svc(["approvals"])).stdout).toMatch(
      /^alpha-1 +strategy +alpha-ma +1 +local\|alice/m,
    );

    const own = await svc(["approve", "alpha-1"], { as: "alice" });
    expect(own.code).toBe(1);
    expect(own.stdout).toBe("");
    expect(own.stderr).toMatch(
      /^svc: 403 four_eyes_violation: four eyes: "local\|alice" is the person who submitted/,
    );

    const approved = await svc(["--json", "approve", "alpha-1", "--note", "reviewed"], {
      as: "bob",
    });
    expect(approved.code, approved.stderr).toBe(0);
    const answer = JSON.parse(approved.stdout);
    expect(answer).toMatchObject({ request_id: "alpha-1", status: "approved" });
    expect(answer.approved_promotion).toMatch(/^ey/);

    await svc(
      ["promote", "beta", "--verdict", "pass", "--risk", "approve", "--request-id", "b-1"],
      {
        as: "alice",
      },
    );
    const rejected = await svc(["reject", "b-1", "--reason", "PBO too high"], { as: "bob" });
    expect(rejected.code, rejected.stderr).toBe(0);
    expect(rejected.stdout).toMatch(/^status +rejected$/m);
    expect(rejected.stdout).toMatch(/^decision +reject by local\|bob: PBO too high$/m);

    await eventually(
      "alpha-1 is promoted",
      () => call(p.url, "GET", "/promotion/requests/alpha-1"),
      (r) => r.body.status === "promoted",
    );
    const started = await svc([
      "paper",
      "start",
      "alpha-ma",
      "--request",
      "alpha-1",
      "--speed",
      "1",
    ]);
    expect(started.code, started.stderr).toBe(0);
    expect(started.stdout).toMatch(/^paper session paper-[0-9a-f]+ running \(deployment /);
    const task = /paper session (\S+)/.exec(started.stdout)![1]!;
    const stopped = await svc(["paper", "stop", "alpha-ma"]);
    expect(stopped.code, stopped.stderr).toBe(0);
    expect(stopped.stdout).toBe(`session  ${task}\nstatus   success\n`);
    const again = await svc(["paper", "stop", "alpha-ma"]);
    expect(again).toMatchObject({
      code: 1,
      stderr: "svc: alpha-ma has no running paper session\n",
    });
  });

  it("engages, lists and releases a kill switch", async () => {
    const engaged = await svc([
      "kill-switch",
      "engage",
      "majors-stop",
      "--scope",
      "fleet",
      "--target",
      "majors",
      "--reason",
      "venue outage",
    ]);
    expect(engaged.code, engaged.stderr).toBe(0);
    expect(engaged.stdout).toMatch(/^engaged +yes$/m);
    expect(engaged.stdout).toMatch(/^scope +fleet majors$/m);
    // The name reused for the whole platform is refused, saying how to mean it.
    const reused = await svc(["kill-switch", "engage", "majors-stop", "--scope", "platform"]);
    expect(reused.code).not.toBe(0);
    expect(reused.stderr).toMatch(/engaged on fleet majors.*release it first/i);
    const list = await svc(["kill-switch", "list"]);
    expect(list.stdout).toMatch(
      /^majors-stop +fleet +majors +cancel +yes +local\|default +\S+ \S+ +\S+ +venue outage$/m,
    );
    const listJson = JSON.parse((await svc(["--json", "kill-switch", "list"])).stdout);
    expect(listJson.items.map((k: { metadata: { name: string } }) => k.metadata.name)).toEqual([
      "majors-stop",
    ]);
    const released = await svc(["kill-switch", "release", "majors-stop", "--reason", "venue back"]);
    expect(released.stdout).toBe("majors-stop released\n");
    expect((await svc(["kill-switch", "list"])).stdout).toBe("no kill switches\n");
  });

  it("halt-all asks on a terminal: anything but yes halts nothing, yes calls every route", async () => {
    const declined = await svc(["halt-all"], { stdinIsTTY: true, answer: "no" });
    expect(declined.code).toBe(1);
    expect(declined.stderr).toContain(`on ${p.url}. Type yes to go on: `);
    expect(declined.stderr).toContain("svc: halt-all not confirmed; nothing was halted");
    expect(declined.stdout).toBe("");
    const confirmed = await svc(["halt-all", "--reason", "drill"], {
      stdinIsTTY: true,
      answer: "yes",
    });
    expect(confirmed.code, confirmed.stdout).toBe(0);
    expect(confirmed.stdout.trim().split("\n")).toHaveLength(6);
    const asJson = await svc(["--json", "halt-all", "--yes"]);
    expect(
      (JSON.parse(asJson.stdout) as Array<{ route: string; status: number }>).map((r) => r.status),
    ).toEqual([200, 200, 200, 200, 200, 200]);
  });

  it("agents release lifts the agent switches halt-all left engaged, and says when one was not", async () => {
    const released = await svc(["agents", "release", "--reason", "drill over"]);
    expect(released.code, released.stderr).toBe(0);
    expect(released.stdout).toMatch(/^SWITCH\s+KEY\s+RELEASED\n/);
    expect(released.stdout).toMatch(/agents\s+svc:agents:halt:all\s+yes\n/);
    expect(released.stdout).toMatch(/quant-agents\s+svc:agents:halt:research\s+yes\n/);
    const again = await svc(["--json", "agents", "release", "--only", "agents"]);
    expect(JSON.parse(again.stdout)).toEqual([
      { switch: "agents", key: "svc:agents:halt:all", released: false },
    ]);
    const wrong = await svc(["agents", "release", "--only", "robots"]);
    expect(wrong.code).toBe(2);
    expect(wrong.stderr).toContain("--only takes agents or quant-agents");
  });

  it("prints the API's error code and message on stderr and exits 1", async () => {
    const missing = await svc(["bots", "show", "nope"]);
    expect(missing).toEqual({
      code: 1,
      stdout: "",
      stderr: 'svc: 404 bot_not_found: no bot with id or slug "nope"\n',
    });
    const bad = await svc(
      ["--json", "bots", "create", "--name", "Gamma", "--family", "ma_crossover"].concat([
        "--param",
        "fast=50",
        "--param",
        "slow=10",
      ]),
    );
    expect(bad.code).toBe(1);
    expect(bad.stdout).toBe("");
    expect(bad.stderr).toMatch(/^svc: 400 invalid_parameter: strategy\.parameters\.slow: /);
    const usage = await svc(["promote", "alpha-ma"]);
    expect(usage.code).toBe(2);
    expect(usage.stderr).toContain("required option '--verdict <verdict>' not specified");
  });

  it("names the URL it could not reach, and gives up on a silent one at the deadline", async () => {
    const refused = await svc(["--url", "http://127.0.0.1:1", "bots", "list"]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/^svc: cannot reach the platform at http:\/\/127\.0\.0\.1:1: /);
    // A server that accepts and never answers.
    const silent: Server = createServer(() => {});
    await new Promise<void>((r) => silent.listen(0, "127.0.0.1", r));
    const port = (silent.address() as { port: number }).port;
    try {
      const hung = await svc(["--timeout", "0.3", "bots", "list"], {
        env: { SVC_URL: `http://127.0.0.1:${port}` },
      });
      expect(hung.code).toBe(1);
      expect(hung.stderr).toBe(
        `svc: cannot reach the platform at http://127.0.0.1:${port}: no answer within 0.3 s (--timeout)\n`,
      );
    } finally {
      silent.close();
    }
  });

  it("sends the token (SVC_TOKEN or --token) and --as, to 127.0.0.1 on SVC_PORT by default", async () => {
    const seen: Array<Record<string, string | string[] | undefined>> = [];
    const api = createHttpServer((req, res) => {
      seen.push({ path: req.url, ...req.headers });
      res.setHeader("content-type", "application/json");
      res.end(JSON.stringify({ items: [] }));
    });
    await new Promise<void>((r) => api.listen(0, "127.0.0.1", r));
    const port = String((api.address() as { port: number }).port);
    try {
      const env = { SVC_URL: "", SVC_PORT: port, SVC_TOKEN: "from-env" };
      const help = await svcIn("", ["--help"], { env });
      expect(help.stdout).not.toContain("from-env");
      expect(await svcIn("", ["bots", "list"], { env })).toEqual({
        code: 0,
        stdout: "no bots\n",
        stderr: "",
      });
      await svcIn("", ["--token", "from-flag", "--as", "bob", "bots", "list"], { env });
      expect(seen.map((h) => [h.path, h.authorization, h["x-svc-local-user"]])).toEqual([
        ["/bots?limit=1000", "Bearer from-env", undefined],
        ["/bots?limit=1000", "Bearer from-flag", "bob"],
      ]);
    } finally {
      api.close();
    }
  });

  it("list commands follow next_page_token to the last page, with their filters on every page", async () => {
    const asked: string[] = [];
    const bot = (slug: string) => ({
      slug,
      name: slug,
      kind: "trading",
      status: "draft",
      current_version: 1,
      fleet: "majors",
    });
    const api = createHttpServer((req, res) => {
      asked.push(req.url ?? "");
      const token = new URL(req.url ?? "", "http://x").searchParams.get("page_token");
      res.setHeader("content-type", "application/json");
      res.end(
        JSON.stringify(
          token === "p2"
            ? { items: [bot("c")], next_page_token: "" }
            : { items: [bot("a"), bot("b")], next_page_token: "p2" },
        ),
      );
    });
    await new Promise<void>((r) => api.listen(0, "127.0.0.1", r));
    const port = String((api.address() as { port: number }).port);
    try {
      const env = { SVC_URL: `http://127.0.0.1:${port}` };
      const r = await svcIn("", ["bots", "list", "--fleet", "majors"], { env });
      expect(r.code, r.stderr).toBe(0);
      expect(
        r.stdout
          .trim()
          .split("\n")
          .slice(1)
          .map((l) => l.split(/ {2,}/)[0]),
      ).toEqual(["a", "b", "c"]);
      expect(asked).toEqual([
        "/bots?fleet=majors&limit=1000",
        "/bots?fleet=majors&limit=1000&page_token=p2",
      ]);
      const json = await svcIn("", ["--json", "bots", "list"], { env });
      expect(JSON.parse(json.stdout)).toEqual({
        items: [bot("a"), bot("b"), bot("c")],
        next_page_token: "",
      });
    } finally {
      api.close();
    }
  });

  it("audit verify recomputes the chain through the API", async () => {
    const r = await svc(["audit", "verify"]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(
      /^audit trail intact: \d+ rows, head hash [0-9a-f]{64}, anchored through seq \d+ by \d+ signed checkpoints \(in-process\)\n$/,
    );
  });

  it("uploads and lists datasets, and a backtest reads one", async (t) => {
    const routes = (await call(p.url, "GET", "/openapi.json")).body.paths as object;
    if (!("/datasets" in routes)) t.skip(); // POST/GET /datasets is being built in the bots service
    const sample = await readFile(join(root, "services/bots/data/sample-btc-usd-1d.csv"), "utf8");
    const dir = await mkdtemp(join(tmpdir(), "svc-cli-"));
    const file = join(dir, "eth.csv");
    await writeFile(file, sample.split("\n").slice(0, 301).join("\n") + "\n");
    const up = await svc([
      "datasets",
      "upload",
      file,
      "--name",
      "eth-1d",
      "--symbol",
      "ETH-USD",
      "--timeframe",
      "1d",
    ]);
    expect(up.code, up.stderr).toBe(0);
    expect(up.stdout).toMatch(/^bars +300$/m);
    expect(up.stdout).toMatch(/^from +2022-01-01/m);
    const list = await svc(["datasets", "list"]);
    expect(list.stdout).toMatch(/^sample-btc-usd-1d +BTC-USD +1d +1000 +.* bundled$/m);
    expect(list.stdout).toMatch(
      /^eth-1d +ETH-USD +1d +300 +2022-01-01 .* uploaded by local\|default$/m,
    );
    // A bad line is refused by the platform, naming it; the CLI shows that as it came.
    await writeFile(
      file,
      "timestamp,open,high,low,close,volume\n2022-01-01,1,2,0.5,1.5,10\n2022-01-02,1,x,0.5,1.5,10\n",
    );
    const bad = await svc([
      "datasets",
      "upload",
      file,
      "--name",
      "bad-1d",
      "--symbol",
      "ETH-USD",
      "--timeframe",
      "1d",
    ]);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/^svc: 400 \w+: .*line 3/);
    expect(JSON.parse((await svc(["--json", "datasets", "list"])).stdout).items).toContainEqual(
      expect.objectContaining({ name: "eth-1d", symbol: "ETH-USD", timeframe: "1d" }),
    );
    const bt = await svc(["backtest", "alpha-ma", "--data-source", "csv:eth-1d", "--watch"]);
    expect(bt.code, bt.stderr).toBe(0);
    expect(bt.stdout).toMatch(/^bars +300$/m);
  });
});

// The whole tree, every command module loaded (svc itself loads only the one it runs).
const tree = await buildFullProgram(processIo());

describe("svc --help", () => {
  /** Every command path of the tree: ["bots", "list"], ["backtest"], ... */
  const paths = (cmd: Command, prefix: string[] = []): string[][] =>
    cmd.commands.flatMap((c) => {
      const path = [...prefix, c.name()];
      return c.commands.length > 0 ? [path, ...paths(c, path)] : [path];
    });
  const all = paths(tree);

  it("covers the commands of the issue", () => {
    expect(all.map((p) => p.join(" "))).toEqual(
      expect.arrayContaining([
        "bots list",
        "bots create",
        "bots show",
        "backtest",
        "promote",
        "approve",
        "reject",
        "paper start",
        "paper stop",
        "kill-switch engage",
        "kill-switch release",
        "kill-switch list",
        "halt-all",
        "report",
        "datasets upload",
        "datasets list",
        "audit verify",
        "strategy init",
        "strategy check",
        "strategy push",
      ]),
    );
  });

  it.each(all.map((p) => [p.join(" "), p] as const))("svc %s --help exits 0", async (_, path) => {
    const r = await svcIn("http://127.0.0.1:1", [...path, "--help"]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(`Usage: svc ${path.join(" ")}`);
  });

  it("runs as `npm run -s svc -w cli --` from the repository's root", async () => {
    const { stdout } = await exec("npm", ["run", "-s", "svc", "-w", "cli", "--", "--help"], {
      cwd: root,
    });
    expect(stdout).toMatch(/^Usage: svc \[options\] \[command\]/);
    const failed = await exec(
      "npm",
      ["run", "-s", "svc", "-w", "cli", "--", "--url", "http://127.0.0.1:1", "kill-switch", "list"],
      { cwd: root },
    ).then(
      () => ({ code: 0, stdout: "", stderr: "" }),
      (e: Failed) => e,
    );
    expect(failed.code).toBe(1);
    expect(failed.stderr).toContain("svc: cannot reach the platform at http://127.0.0.1:1: ");
  }, 60_000);
});
