import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import type { Bars } from "../../engine/bars.js";
import { BacktestRun } from "../../engine/event-engine.js";
import { generateBars } from "../../engine/synthetic-source.js";
import { blocksOf } from "../../sandbox/fixtures/drive.js";
import {
  bundleStrategyFile,
  DEFAULT_SANDBOX_LIMITS,
  startSandbox,
  StrategyFailure,
  type Sandbox,
} from "../../sandbox/index.js";
import { SYSTEM_PYTHON } from "../../sandbox/python/isolation.js";
import { PYTHON_SDK, pythonStubs } from "../../sandbox/python/stubs.js";
import { GrpcStrategyHost } from "./grpc-host.js";
import { startPythonHost } from "./python-host.js";
import type { AsyncStrategyHost } from "./strategy-host.js";
import type { ExecutionEvent } from "../events.js";
import { SandboxHost, withBars } from "./sandbox-host.js";

const fixture = (name: string) =>
  fileURLToPath(new URL(`../../sandbox/fixtures/${name}`, import.meta.url));
const MA_FAMILY_PY = fs.readFileSync(fixture("ma_family.py"), "utf8");
const settings = { initialCash: 100_000, feeBps: 5, slippageBps: 3, positionSize: 0.5 };
const SYMBOL = "BTC-USD";
const hosts: GrpcStrategyHost[] = [];
const sandboxes: Sandbox[] = [];
afterEach(() => {
  for (const h of hosts.splice(0)) h.close();
  for (const s of sandboxes.splice(0)) s.kill();
});

async function python(
  source: string,
  params: Record<string, unknown> = {},
  limits: { callTimeoutMs?: number } = {},
): Promise<GrpcStrategyHost> {
  const host = await startPythonHost({ source, symbol: SYMBOL, params, limits });
  hosts.push(host);
  return host;
}

async function backtest(host: AsyncStrategyHost, chunks: readonly Bars[]) {
  const run = new BacktestRun({ asyncHost: host }, settings, { symbol: SYMBOL });
  for (const chunk of chunks) await run.feedAsync(chunk);
  await run.stop();
  return run.finish();
}

/** ma_family.py with `lines` put in front of on_bar's body (a hostile twist on a working strategy). */
function hostile(lines: string, imports = ""): string {
  return `${imports}\n${MA_FAMILY_PY}\n_on_bar = on_bar\n\ndef on_bar(ctx):\n${lines
    .split("\n")
    .map((l) => `    ${l}`)
    .join("\n")}\n    _on_bar(ctx)\n`;
}

describe("a Python strategy over gRPC, in the sandbox", () => {
  it("backtests to its TypeScript twin's trades and metrics, bit for bit, over streamed chunks", async () => {
    const bars = generateBars({ seed: 5, count: 30_000 });
    const p = { fast: 7, slow: 40, allow_short: true };
    const chunks = blocksOf(bars, 7_000).map((b) => b[0]!);
    const sandbox = await startSandbox({
      bundle: await bundleStrategyFile(fixture("ma-family.strategy.ts")),
      params: p,
      symbols: [SYMBOL],
    });
    sandboxes.push(sandbox);
    await sandbox.init();
    const viaTypeScript = await backtest(new SandboxHost(sandbox, SYMBOL), chunks);
    const viaPython = await backtest(await python(MA_FAMILY_PY, p), chunks);
    expect(viaTypeScript.trades).toBeGreaterThan(50);
    expect(viaPython).toEqual(viaTypeScript);
    expect(Object.is(viaPython.finalEquity, viaTypeScript.finalEquity)).toBe(true);
  }, 90_000);

  it("answers the parameters it resolved, and refuses ones that do not fit with invalid_params", async () => {
    const host = await startPythonHost({
      source: MA_FAMILY_PY,
      symbol: SYMBOL,
      params: { fast: 3 },
    });
    hosts.push(host);
    expect(host.resolved).toEqual({
      params: { fast: 3, slow: 30, allow_short: false },
      // What sweeps and forms read: each declaration as the module made it.
      declared: {
        fast: { type: "int", default: 10, min: 1, description: "bars in the fast average" },
        slow: { type: "int", default: 30, min: 2, description: "bars in the slow average" },
        allow_short: {
          type: "boolean",
          default: false,
          description: "go short when fast < slow",
        },
      },
      lookback: 1,
    });
    await expect(
      startPythonHost({ source: MA_FAMILY_PY, symbol: SYMBOL, params: { fast: 2.5 } }),
    ).rejects.toMatchObject({ code: "invalid_params", message: expect.stringContaining("fast") });
    await expect(
      startPythonHost({ source: MA_FAMILY_PY, symbol: SYMBOL, params: { fsat: 3 } }),
    ).rejects.toMatchObject({ code: "invalid_params", message: expect.stringContaining("fsat") });
    // A declaration the platform's JSON objects could not keep is refused by name.
    const proto = `from svc_strategy import param\n\nparams = {"__proto__": param.int(default=1)}\n`;
    await expect(startPythonHost({ source: proto, symbol: SYMBOL })).rejects.toMatchObject({
      code: "invalid_params",
      message: expect.stringContaining("__proto__: a parameter may not be named __proto__"),
    });
  });

  it("fails the run with strategy_error and the strategy's own stack when it raises", async () => {
    const source = `def on_bar(ctx):\n    if ctx.bars(ctx.symbols[0]).latest.close > 0:\n        raise ValueError("no signal today")\n`;
    const run = backtest(await python(source), [generateBars({ seed: 1, count: 100 })]);
    await expect(run).rejects.toMatchObject({
      code: "strategy_error",
      message: "ValueError: no signal today",
      strategyStack: expect.stringContaining('File "/sandbox/strategy.py", line 3, in on_bar'),
    });
    await expect(run).rejects.not.toMatchObject({
      strategyStack: expect.stringContaining("svc_strategy"),
    });
  });
});

describe("explicit orders and a resumed run over gRPC", () => {
  it("places market, limit and stop orders and cancels as its TypeScript twin does: the same orders at the venue, in the same order", async () => {
    const bars = generateBars({ seed: 3, count: 4_000 });
    const chunks = blocksOf(bars, 1_500).map((b) => b[0]!);
    const run = async (host: AsyncStrategyHost) => {
      const events: ExecutionEvent[] = [];
      const r = new BacktestRun({ asyncHost: host }, settings, {
        symbol: SYMBOL,
        onEvent: (e) => events.push(e),
      });
      for (const chunk of chunks) await r.feedAsync(chunk);
      await r.stop();
      return { metrics: r.finish(), events };
    };
    const sandbox = await startSandbox({
      bundle: await bundleStrategyFile(fixture("orders.strategy.ts")),
      params: {},
      symbols: [SYMBOL],
    });
    sandboxes.push(sandbox);
    const tsHost = new SandboxHost(sandbox, SYMBOL);
    tsHost.initialised(await sandbox.init());
    const viaTypeScript = await run(tsHost);
    const pyHost = await python(fs.readFileSync(fixture("orders.py"), "utf8"));
    const viaPython = await run(pyHost);
    const kinds = (r: typeof viaPython) =>
      new Set(r.events.flatMap((e) => (e.type === "order_placed" ? [e.data.kind] : [])));
    expect([...kinds(viaTypeScript)].sort()).toEqual(["limit", "market", "stop"]);
    expect(viaTypeScript.events.some((e) => e.type === "order_cancelled")).toBe(true);
    expect(viaPython.events).toEqual(viaTypeScript.events);
    expect(viaPython.metrics).toEqual(viaTypeScript.metrics);
    // The Python strategy hears its fills and sees its open orders by the ids it was given.
    const lines = pyHost.logs.map((l) => l.message);
    const placed = new Set(lines.flatMap((l) => /^placed (o\d+)/.exec(l)?.[1] ?? []));
    const tsLines = tsHost.logs.map((l) => `${l.message} ${l.fields?.id ?? l.fields?.ids ?? ""}`);
    expect(placed.size).toBe(tsLines.filter((l) => l.startsWith("placed")).length);
    const fills = lines.filter((l) => l.startsWith("fill "));
    expect(fills.length).toBeGreaterThan(10);
    for (const f of fills) {
      const id = f.split(" ")[1]!;
      expect(placed.has(id) || id.startsWith("target:"), f).toBe(true);
    }
    for (const l of lines.filter((x) => x.startsWith("open ") && x.length > 5))
      for (const id of l.slice(5).split(","))
        expect(placed.has(id) || id.startsWith("target:"), l).toBe(true);
  }, 90_000);

  it("resumes from its snapshot (ctx.state, its bars, its random numbers) as if it had never stopped", async () => {
    const source = `import random

lookback = 3

def init(ctx):
    ctx.log(f"init {ctx.state.get('seen', 0)}")

def on_bar(ctx):
    ctx.state["seen"] = ctx.state.get("seen", 0) + 1
    closes = ",".join(f"{c:.4f}" for c in ctx.bars(ctx.symbols[0]).closes())
    ctx.log(f"bar {ctx.state['seen']} {ctx.random.random()} {random.random()} {closes}")
`;
    const bars = generateBars({ seed: 4, count: 60 });
    const view = { cash: 1_000, units: 0, target: Number.NaN, openOrders: 0, working: [] };
    const sink = { target: () => undefined, order: () => undefined, cancel: () => undefined };
    const drive = async (host: GrpcStrategyHost, from: number, to: number) => {
      for (let at = from; at < to;) {
        const d = await host.decide(bars, at, to, view, sink);
        at = d === to ? to : d + 1;
      }
    };
    const straight = await startPythonHost({ source, symbol: SYMBOL, seed: 7 });
    hosts.push(straight);
    await drive(straight, 0, 60);
    const first = await startPythonHost({ source, symbol: SYMBOL, seed: 7 });
    hosts.push(first);
    await drive(first, 0, 25);
    const snapshot = await first.snapshot([]);
    expect(snapshot.sandbox.state).toEqual({ seen: 25 });
    // As a paper session keeps it: plain JSON, its bars left out (withBars puts them back).
    const kept = JSON.parse(JSON.stringify(snapshot)) as typeof snapshot;
    const resumed = await startPythonHost({
      source,
      symbol: SYMBOL,
      seed: 7,
      restore: withBars(kept, SYMBOL, bars, 24),
    });
    hosts.push(resumed);
    resumed.restoreBooks(kept);
    await drive(resumed, 25, 60);
    const messages = (h: GrpcStrategyHost) => h.logs.map((l) => l.message);
    expect(messages(resumed)[0]).toBe("init 25");
    expect([...messages(first), ...messages(resumed).slice(1)]).toEqual(messages(straight));
  });

  it("an init that raises keeps the lines it wrote before, though no host is handed out", async () => {
    const failure = (await startPythonHost({
      source: "def init(ctx):\n    ctx.log('before the raise')\n    raise ValueError('bad init')\n",
      symbol: SYMBOL,
    }).catch((e: unknown) => e)) as StrategyFailure;
    expect(failure).toBeInstanceOf(StrategyFailure);
    expect(failure.message).toContain("ValueError: bad init");
    expect(failure.callLogs?.lines.map((l) => l.message)).toEqual(["before the raise"]);
  });

  it("a ctx.state that is not JSON fails the snapshot with strategy_error saying so", async () => {
    const host = await python("def init(ctx):\n    ctx.state['when'] = object()\n");
    await expect(host.snapshot([])).rejects.toMatchObject({
      code: "strategy_error",
      message: expect.stringContaining("ctx.state must hold JSON values only"),
    });
  });
});

describe("a hostile Python strategy is contained", () => {
  const bars = () => [generateBars({ seed: 2, count: 2_000 })];

  it("an endless loop ends the run strategy_timeout at the call's limit, and its process", async () => {
    const host = await python(hostile("while True:\n    pass"), {}, { callTimeoutMs: 1_500 });
    await expect(backtest(host, bars())).rejects.toMatchObject({
      code: "strategy_timeout",
      message: expect.stringContaining("1500 ms"),
    });
    expect(host.failure?.code).toBe("strategy_timeout");
    await expect(host.exited).resolves.toMatchObject({ signal: "SIGKILL" });
  });

  it("an allocation bomb ends the run strategy_memory at the address-space limit", async () => {
    const host = await python(
      hostile("hoard = [bytearray(64 * 1024 * 1024) for _ in range(1000)]"),
    );
    await expect(backtest(host, bars())).rejects.toMatchObject({
      code: "strategy_memory",
      message: expect.stringContaining(`${DEFAULT_SANDBOX_LIMITS.addressSpaceMb} MiB`),
    });
  });

  it("sys.exit inside on_bar is the strategy's error, not a silent end", async () => {
    const host = await python(hostile("sys.exit(0)", "import sys"));
    await expect(backtest(host, bars())).rejects.toMatchObject({
      code: "strategy_error",
      message: "SystemExit: 0",
    });
  });

  it("a process that exits ends the run strategy_error saying how", async () => {
    const host = await python(hostile("os._exit(3)", "import os"));
    await expect(backtest(host, bars())).rejects.toMatchObject({
      code: "strategy_error",
      message: expect.stringContaining("exit code 3"),
    });
  });

  it("garbage written to stdout changes nothing: stdout is not the wire", async () => {
    const noisy = hostile(
      'sys.stdout.write("\\x05\\x00\\x00\\x00\\x81{\\"ok\\":1}" * 50)\nsys.stdout.flush()\nos.write(1, bytes(range(256)))',
      "import os, sys",
    );
    const quiet = await backtest(await python(MA_FAMILY_PY), bars());
    expect(await backtest(await python(noisy), bars())).toEqual(quiet);
  });

  it("has no network: this machine's Postgres is refused, the outside unreachable", async () => {
    // Postgres listens on 127.0.0.1:5432 here (the tests' store): refused means another network.
    const source = `import socket

def init(ctx):
    for host, port in (("127.0.0.1", 5432), ("1.1.1.1", 443)):
        try:
            socket.create_connection((host, port), timeout=2).close()
            ctx.log(f"{host}: connected")
        except OSError as e:
            ctx.log(f"{host}: {type(e).__name__} {e.errno}")
`;
    const host = await python(source);
    expect(host.logs.map((l) => l.message)).toEqual([
      "127.0.0.1: ConnectionRefusedError 111",
      "1.1.1.1: OSError 101",
    ]);
  });

  it("sees no file of the host: the platform's files and another socket are not there", async () => {
    const source = `def init(ctx):\n    for path in ("/etc/passwd", "/proc/1/environ", "/var/run/postgresql/.s.PGSQL.5432"):\n        try:\n            open(path, "rb")\n        except OSError as e:\n            ctx.log(f"{path}: {type(e).__name__}")\n`;
    const host = await python(source);
    expect(host.logs.map((l) => l.message)).toEqual([
      "/etc/passwd: FileNotFoundError",
      "/proc/1/environ: FileNotFoundError",
      "/var/run/postgresql/.s.PGSQL.5432: FileNotFoundError",
    ]);
  });

  it("a file that does not compile ends the run strategy_error with the line", async () => {
    await expect(
      startPythonHost({ source: "def on_bar(ctx):\n    return (\n", symbol: SYMBOL }),
    ).rejects.toMatchObject({
      code: "strategy_error",
      message: expect.stringMatching(/SyntaxError.*|line 2/),
    });
  });
});

describe("a strategy service the host did not start (the runner pod's sidecar)", () => {
  it("is driven over its socket as the sandboxed one is, to the same result", async () => {
    // The example pod's strategy, served as its container's entry serves it (PYTHONPATH of the
    // image: the stubs and the SDK), outside any sandbox: Kubernetes is the boundary there.
    const manifest = fs.readFileSync(
      fileURLToPath(
        new URL("../../../../../deploy/k8s/examples/runner-python-strategy.yaml", import.meta.url),
      ),
      "utf8",
    );
    const source = /strategy\.py: \|\n((?: {4}.*\n|\n)+)/
      .exec(manifest)![1]!
      .replace(/^ {4}/gm, "");
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "svc-sidecar-"));
    fs.writeFileSync(path.join(dir, "strategy.py"), source);
    const socketPath = path.join(dir, "strategy.sock");
    const stubs = await pythonStubs(SYSTEM_PYTHON);
    const sidecar = spawn(
      SYSTEM_PYTHON,
      ["-B", "-m", "svc_strategy.serve", socketPath, path.join(dir, "strategy.py")],
      {
        env: { PYTHONPATH: `${stubs}:${path.dirname(PYTHON_SDK)}` },
        stdio: "ignore",
      },
    );
    try {
      const host = new GrpcStrategyHost({
        socketPath,
        symbol: SYMBOL,
        limits: DEFAULT_SANDBOX_LIMITS,
      });
      hosts.push(host);
      await host.init({ params: { fast: 5 } });
      const chunks = [generateBars({ seed: 9, count: 5_000 })];
      const viaSidecar = await backtest(host, chunks);
      const viaSandbox = await backtest(await python(source, { fast: 5 }), chunks);
      expect(viaSidecar.trades).toBeGreaterThan(10);
      expect(viaSidecar).toEqual(viaSandbox);
    } finally {
      sidecar.kill("SIGKILL");
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
