import { execFileSync } from "node:child_process";
import os from "node:os";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { eventually } from "../../../../test/support/until.js";
import { generateBars } from "../engine/synthetic-source.js";
import { blocksOf, driveBlocks, FLAT } from "./fixtures/drive.js";
import {
  bundleStrategyFile,
  startSandbox,
  StrategyFailure,
  type DecideAnswer,
  type Sandbox,
  type SandboxLimits,
} from "./index.js";
import { spawnIsolated } from "./isolation.js";

// Every strategy here is a raw bundle, not one our pipeline built: the sandbox must hold against
// any JavaScript, not only what type-checks against the SDK.
const started: Sandbox[] = [];
afterEach(() => {
  for (const s of started.splice(0)) s.kill();
});

const bars = generateBars({ seed: 11, count: 50 });

/** A strategy whose `onBar` (and module code) is `body`; runs init and one block of 50 bars. */
async function runHostile(
  members: string,
  opts: { limits?: Partial<SandboxLimits>; head?: string } = {},
): Promise<{ failure?: StrategyFailure; answer?: DecideAnswer; sandbox: Sandbox }> {
  const bundle = `${opts.head ?? ""}\nmodule.exports.default = { params: {}, ${members} };`;
  const sandbox = await startSandbox({ bundle, symbols: ["X"], limits: opts.limits });
  started.push(sandbox);
  try {
    await sandbox.init();
    const answer = await sandbox.decide([bars], 0, bars.length, FLAT);
    return { answer, sandbox };
  } catch (error) {
    if (!(error instanceof StrategyFailure)) throw error;
    return { failure: error, sandbox };
  }
}

async function expectFailure(
  members: string,
  code: StrategyFailure["code"],
  message: RegExp,
  opts: { limits?: Partial<SandboxLimits>; head?: string } = {},
): Promise<StrategyFailure> {
  const { failure, sandbox } = await runHostile(members, opts);
  expect(failure, "the run should have failed").toBeInstanceOf(StrategyFailure);
  expect(failure!.code).toBe(code);
  expect(failure!.message).toMatch(message);
  // The run's process is gone, and the sandbox says why to whoever calls it next.
  await sandbox.exited;
  await expect(sandbox.decide([bars], 0, 1, FLAT)).rejects.toBe(failure);
  return failure!;
}

describe("hostile strategies are contained", () => {
  it("an endless loop ends the run with strategy_timeout at the call's limit", async () => {
    await expectFailure(
      "onBar() { for (;;) {} }",
      "strategy_timeout",
      /ran over its limit of 1000 ms/,
      {
        limits: { callTimeoutMs: 1_000 },
      },
    );
  });

  it("a call killed at its limit keeps the lines the strategy wrote before it looped", async () => {
    const failure = await expectFailure(
      `onBar(ctx) { ctx.log.info("about to loop", { bar: 1 }); ctx.log.warn("still here"); for (;;) {} }`,
      "strategy_timeout",
      /ran over its limit of 1000 ms/,
      { limits: { callTimeoutMs: 1_000 } },
    );
    expect(failure.callLogs?.lines.map((l) => [l.level, l.message, l.fields])).toEqual([
      ["info", "about to loop", { bar: 1 }],
      ["warn", "still here", undefined],
    ]);
  });

  it("an endless loop in module code or init is stopped the same way", async () => {
    await expectFailure("onBar() {}", "strategy_timeout", /ran over/, {
      head: "while (true) {}",
      limits: { callTimeoutMs: 1_000 },
    });
  });

  it("a run past its CPU seconds ends with strategy_timeout, whatever the call's own limit", async () => {
    await expectFailure("onBar() { for (;;) {} }", "strategy_timeout", /used its 1 s of CPU/, {
      limits: { runCpuSeconds: 1, callTimeoutMs: 30_000 },
    });
  });

  it("a strategy may name its own things after globals (its code runs in a scope of its own)", async () => {
    const { answer } = await runHostile(
      `onBar(ctx) { ctx.log.info("own", { map: Map.own, math: Math.abs(-2) }); }`,
      { head: "const Map = { own: 'mine' };" },
    );
    expect(answer!.logs[0]!.fields).toEqual({ map: "mine", math: 2 });
  });

  it("an allocation bomb ends the run with strategy_memory", async () => {
    await expectFailure(
      "onBar() { const keep = []; for (;;) keep.push({ a: [1, 2, 3], b: 'x'.repeat(64) + keep.length }); }",
      "strategy_memory",
      /out of memory \(limit 64 MiB/,
      { limits: { memoryMb: 64, addressSpaceMb: 1_536, callTimeoutMs: 20_000 } },
    );
  });

  it("an array-buffer bomb outside the heap ends the run with strategy_memory", async () => {
    await expectFailure(
      "onBar() { const keep = []; for (;;) keep.push(new Float64Array(1 << 24)); }",
      "strategy_memory",
      /out of memory/,
      { limits: { memoryMb: 64, addressSpaceMb: 1_536, callTimeoutMs: 20_000 } },
    );
  });

  it("deep recursion is a strategy_error with the strategy's own stack and no host path", async () => {
    const failure = await expectFailure(
      "onBar() { function dive(n) { return dive(n + 1) + 1; } dive(0); }",
      "strategy_error",
      /RangeError: Maximum call stack size exceeded/,
    );
    expect(failure.strategyStack).toMatch(/at dive \(strategy\.js:2:\d+\)/);
    expect(failure.strategyStack).not.toMatch(/runtime\.js|bootstrap|\/work\/|\/sandbox\//);
  });

  it('require("fs") finds no require', async () => {
    await expectFailure(
      'onBar() { require("fs").readFileSync("/etc/passwd"); }',
      "strategy_error",
      /ReferenceError: require is not defined/,
    );
  });

  it("process.exit() finds no process", async () => {
    await expectFailure(
      "onBar() { process.exit(0); }",
      "strategy_error",
      /ReferenceError: process is not defined/,
    );
  });

  it("import() loads nothing, and an async callback is refused (nothing asynchronous ever runs)", async () => {
    await expectFailure(
      'async onBar() { const fs = await import("node:fs"); fs.writeFileSync("/tmp/owned", "x"); }',
      "strategy_error",
      /returned a promise: callbacks are synchronous/,
    );
  });

  it("eval, Function and a function's constructor cannot make code from strings", async () => {
    for (const attempt of [
      'eval("1 + 1")',
      'new Function("return 1")()',
      '(() => {}).constructor("return process")()',
      'Object.getPrototypeOf(async function () {}).constructor("return 1")',
    ]) {
      await expectFailure(
        `onBar() { ${attempt}; }`,
        "strategy_error",
        /EvalError: Code generation from strings disallowed/,
      );
    }
  });

  it("Atomics.wait for ever finds no Atomics, and there is no shared memory to wait on", async () => {
    await expectFailure(
      "onBar() { Atomics.wait(new Int32Array(4), 0, 0); }",
      "strategy_error",
      /ReferenceError: Atomics is not defined/,
    );
    await expectFailure(
      "onBar() { new SharedArrayBuffer(8); }",
      "strategy_error",
      /SharedArrayBuffer is not defined/,
    );
  });

  it("tampering with shared globals and prototypes changes nothing, here or in the next run", async () => {
    const tampers = {
      objectPrototype: "Object.prototype.polluted = 1; return ({}).polluted === 1;",
      arrayPush: "Array.prototype.push = function () { return 0; }; return [].push(1) === 0;",
      mathRandom: "Math.random = () => 0.5; return Math.random() === 0.5;",
      json: "globalThis.JSON = { stringify: () => 'owned' }; return JSON.stringify(1) === 'owned';",
      defineOnPrototype:
        "Object.defineProperty(Object.prototype, 'then', { value: 1 }); return ({}).then === 1;",
      functionCall:
        "Function.prototype.call = () => 'owned'; return (function () { return 1; }).call() === 'owned';",
      dateNow: "Date.now = () => 1; return Date.now() === 1;",
      context: "ctx.target = () => {}; return ctx.target.length === 0;",
      errorStack:
        "Error.prepareStackTrace = (e, s) => s; return Error.prepareStackTrace !== undefined;",
    };
    const members = `onBar(ctx) {
      const results = {};
      for (const [name, body] of Object.entries(${JSON.stringify(tampers)})) {
        results[name] = "refused";
        try { if (TAMPER[name](ctx)) results[name] = "CHANGED"; } catch (e) { results[name] = "refused"; }
      }
      ctx.log.info("tamper", results);
      ctx.target("X", { weight: 1 });
    }`;
    const head = `const TAMPER = {${Object.entries(tampers)
      .map(([name, body]) => `${name}: function (ctx) { ${body} }`)
      .join(",\n")}};`;
    const { answer } = await runHostile(members, { head });
    expect(answer!.logs[0]!.fields).toEqual(
      Object.fromEntries(Object.keys(tampers).map((k) => [k, "refused"])),
    );
    expect(answer!.decisions[0]!.targets).toEqual([{ symbol: "X", target: { weight: 1 } }]);
    // The host's realm and the next run's are their own: neither saw any of it.
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    const next = await runHostile(
      `onBar(ctx) { ctx.log.info("clean", { polluted: String(({}).polluted), push: [].push(1) }); }`,
    );
    expect(next.answer!.logs[0]!.fields).toEqual({ polluted: "undefined", push: 1 });
  });

  it("finds nothing of the platform from inside the strategy realm: no process, env, require or host objects", async () => {
    const members = `onBar(ctx) {
      const found = [];
      const look = (name, f) => { try { const v = f(); if (v !== undefined && v !== null) found.push(name); } catch (e) {} };
      look("process", () => globalThis.process);
      look("env", () => process.env.SVC_DATABASE_URL);
      look("require", () => require);
      look("module.require", () => module.require);
      look("Buffer", () => Buffer);
      look("fetch", () => fetch);
      look("setTimeout", () => setTimeout);
      look("console", () => console);
      look("WebAssembly", () => WebAssembly);
      look("WeakRef", () => WeakRef);
      look("host Function via ctx", () => ctx.bars.constructor.constructor("return process")());
      look("host Function via bars", () => ctx.bars("X").closes(1).constructor.constructor("return process")());
      look("clock", () => Date.now());
      look("new Date()", () => new Date());
      ctx.log.info("found", { found: found.join(",") || "nothing", dated: new Date(ctx.time).toISOString() });
    }`;
    process.env.SVC_DATABASE_URL ??= "postgres://secret@127.0.0.1:5432/platform";
    const { answer } = await runHostile(members);
    expect(answer!.logs[0]!.fields).toEqual({
      found: "nothing",
      dated: new Date(bars.time[0]!).toISOString(),
    });
  });

  it("a flood of log lines keeps the run's limit and counts the rest", async () => {
    const { answer } = await runHostile(
      `onBar(ctx) { for (let i = 0; i < 100000; i++) ctx.log.info("x".repeat(5000) + i); }`,
      { limits: { logLines: 200, logLineChars: 100 } },
    );
    expect(answer!.logs).toHaveLength(200);
    expect(answer!.logs.every((l) => l.message.length === 100)).toBe(true);
    expect(answer!.logsDropped).toBe(50 * 100_000 - 200);
  });

  it("an answer past the host's limit ends the run instead of filling the host's memory", async () => {
    await expectFailure(
      `onBar(ctx) { for (let i = 0; i < 20000; i++) ctx.cancel("c".repeat(100)); }`,
      "strategy_error",
      /answer \(\d+ bytes\) is over the limit of 100000/,
      { limits: { maxAnswerBytes: 100_000 } },
    );
  });

  it("a call past slowCallMs has its process reniced, so a spinning strategy yields the CPU to other runs", async () => {
    const sandbox = await startSandbox({
      bundle: "module.exports.default = { params: {}, onBar() { for (;;) {} } };",
      symbols: ["X"],
      limits: { slowCallMs: 100, callTimeoutMs: 15_000 },
    });
    started.push(sandbox);
    await sandbox.init();
    const niceOfNode = () => {
      const ps = execFileSync("ps", ["-o", "pid=,ppid=,ni=,args=", "-e"], { encoding: "utf8" });
      const rows = ps
        .trim()
        .split("\n")
        .map((l) => l.trim().split(/\s+/));
      // The sandbox's node: a descendant of the bwrap process this sandbox started.
      const under = new Set([String(sandbox.pid)]);
      for (let changed = true; changed;) {
        changed = false;
        for (const [pid, ppid] of rows)
          if (under.has(ppid!) && !under.has(pid!)) changed = under.add(pid!) !== undefined;
      }
      return rows.find(
        (r) => under.has(r[0]!) && r.slice(3).join(" ").includes("/sandbox/bootstrap.cjs"),
      )?.[2];
    };
    // Without the renice it would stay at the host's own niceness (the tests may run niced).
    expect(os.getPriority()).toBeLessThan(19);
    const spinning = sandbox.decide([bars], 0, 1, FLAT).catch((e: unknown) => e);
    await eventually("the spinning strategy's node is reniced", niceOfNode, (ni) => ni === "19");
    sandbox.kill();
    await spinning;
  });

  it("a hostile run beside a normal one leaves the normal one's decisions as they are alone", async () => {
    const long = generateBars({ seed: 21, count: 20_000 });
    const bundle = await bundleStrategyFile(
      fileURLToPath(new URL("./fixtures/ma-crossover.strategy.ts", import.meta.url)),
    );
    const normal = async () => {
      const sandbox = await startSandbox({ bundle, symbols: ["X"] });
      started.push(sandbox);
      await sandbox.init();
      const { decisions } = await driveBlocks(sandbox, blocksOf(long, 2_000));
      await sandbox.stop();
      return JSON.stringify(decisions);
    };
    const alone = await normal();
    const [beside, hostile] = await Promise.all([
      normal(),
      runHostile("onBar() { for (;;) {} }", { limits: { callTimeoutMs: 3_000 } }),
    ]);
    expect(hostile.failure!.code).toBe("strategy_timeout");
    expect(beside).toBe(alone);
  });
});

/**
 * The process boundary, shown without the realm: what a strategy that broke out of the strategy
 * realm into node's own (a V8 bug, say) would find. The probe runs as the sandbox's bootstrap.
 */
describe("the sandbox's process boundary", () => {
  const probe = `
const fs = require("node:fs"), net = require("node:net"), cp = require("node:child_process");
const out = {};
const tryIt = (name, f) => { try { out[name] = "allowed: " + String(f()).slice(0, 80); } catch (e) { out[name] = e.code || e.message; } };
out.uid = process.getuid();
out.env = Object.keys(process.env).filter((k) => k !== "PWD").join(",");
tryIt("passwd", () => fs.readFileSync("/etc/passwd", "utf8"));
tryIt("repo", () => fs.readFileSync(${JSON.stringify(fileURLToPath(import.meta.url))}, "utf8"));
tryIt("proc", () => fs.readdirSync("/proc").length);
tryIt("root", () => fs.readdirSync("/").join(","));
tryIt("write", () => fs.writeFileSync("/owned", "x"));
tryIt("shell", () => fs.statSync("/bin/sh").size);
const host = Number(fs.readFileSync(0, "utf8").trim());
tryIt("killHost", () => process.kill(host, 0));
const socket = net.connect(5432, "127.0.0.1");
socket.on("connect", () => { out.network = "connected"; done(); });
socket.on("error", (e) => { out.network = e.code; done(); });
function done() {
  // A child of its own (node is the one program there), each way node has, and a fork bomb's
  // worth of them at once: none may start.
  tryIt("spawnNode", () => { const r = cp.spawnSync(process.execPath, ["-e", "setInterval(() => {}, 1000)", "svc-sandbox-probe-child"]); if (r.error) throw r.error; return r.status; });
  tryIt("execFile", () => cp.execFileSync(process.execPath, ["-e", "1"]));
  let started = 0, refused = "";
  for (let i = 0; i < 200; i++) {
    try {
      const c = cp.spawn(process.execPath, ["-e", "setInterval(() => {}, 1000)", "svc-sandbox-probe-child"]);
      c.on("error", (e) => { refused = e.code; });
      if (c.pid) started++;
    } catch (e) { refused = e.code || e.message; }
  }
  out.bomb = { started, refused };
  // A worker thread is a thread, not a process: node's own threads still start.
  const { Worker } = require("node:worker_threads");
  const w = new Worker("require('node:worker_threads').parentPort.postMessage(6 * 7)", { eval: true });
  w.on("error", (e) => { out.thread = e.code || e.message; report(); });
  w.on("message", (m) => { out.thread = m; w.terminate(); report(); });
}
function report() {
  process.stdout.write(JSON.stringify(out) + "\\n");
  setInterval(() => {}, 1000);
}
`;

  it("has no host file, environment, network, other process or way out, and leaves nothing behind", async () => {
    process.env.SVC_DATABASE_URL ??= "postgres://secret@127.0.0.1:5432/platform";
    const child = spawnIsolated(probe, { heapMb: 64, addressSpaceMb: 2_048, cpuSeconds: 30 });
    let text = "";
    child.stdout!.on("data", (d: Buffer) => (text += d.toString()));
    child.stdin!.end(String(process.pid));
    const seen = await eventually(
      "the probe's report",
      () => text,
      (t) => t.includes("\n"),
    );
    const report = JSON.parse(seen) as Record<string, unknown>;
    expect(report).toMatchObject({
      uid: 65534,
      env: "",
      passwd: "ENOENT",
      repo: "ENOENT",
      proc: "ENOENT",
      write: "EROFS",
      shell: "ENOENT",
      killHost: "ESRCH",
      // The host's Postgres listens on 5432: refused means the sandbox's loopback is its own.
      network: "ECONNREFUSED",
      // One process: the seccomp filter refuses every new one (no-new-processes.ts).
      spawnNode: "EPERM",
      execFile: "EPERM",
      bomb: { started: 0, refused: "EPERM" },
      thread: 42,
    });
    expect(String(report.root).split(": ")[1]!.split(",")).not.toContain("etc");
    expect(String(report.root)).not.toMatch(/work|home|root|tmp|proc/);
    expect(execFileSync("ps", ["-eo", "args"], { encoding: "utf8" })).not.toContain(
      "svc-sandbox-probe-child",
    );
    child.kill("SIGKILL");
    await eventually(
      "the probe's own child is gone with the sandbox",
      () => execFileSync("ps", ["-eo", "args"], { encoding: "utf8" }),
      (ps) => !ps.includes("svc-sandbox-probe-child"),
    );
  });
});
