import { execFileSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { expect, it } from "vitest";

const fixture = fileURLToPath(new URL("./second-run.fixture.ts", import.meta.url));
/**
 * The engine's functions that run per bar or per order (not the curve's `halve`: it runs a dozen
 * times a backtest, and V8 may drop a function's code that long unused between runs).
 */
const HOT = [
  "feedBars",
  "feedStrategy",
  "scan",
  "mark",
  "ask",
  "horizon",
  "act",
  "feedColumns",
  "scanColumns",
  "onBar",
  "resum",
  "deepen",
  "close",
  "newDay",
  "wouldMove",
  "decide",
  "ordersForTarget",
  "submit",
  "PlacedOrder",
  "fillWorking",
  "fill",
  "booked",
  "apply",
];
const names = (line: string) => [...line.matchAll(/(?:JSFunction|SharedFunctionInfo) (\w+)/g)];
const hot = (line: string) => names(line).some((m) => HOT.includes(m[1]!));
/**
 * The code's identity in a trace line: its function (SharedFunctionInfo) and whether it is the
 * on-stack entry to a loop (OSR) or the whole function, which are compiled apart.
 */
const codeOf = (line: string) =>
  `${/sfi = (0x[0-9a-f]+)/.exec(line)?.[1] ?? line}${/\) OSR\b/.test(line) ? " OSR" : ""}`;
// TurboFan's code is what a warm engine runs on (TURBOFAN on Node 20, TURBOFAN_JS on 24). Node 22
// and later also have Maglev, a quicker middle tier whose compiles and deopts land whenever its
// concurrent compiles finish, run to run: a function going on from Maglev to TurboFan in the
// second run is tiering up, not paying again.
const turbofan = /(?:<Code TURBOFAN|target TURBOFAN)/;

it.each(["event", "vectorised"])(
  "a second backtest (%s) in a long-running process runs on the code compiled for the first: none of the engine's hot functions has its optimised code thrown away or is optimised again",
  (path) => {
    const trace = execFileSync(
      process.execPath,
      [
        "--expose-gc",
        "--trace-deopt",
        "--trace-opt",
        // Compiles made on the main thread, when asked for: a compile that a loaded machine's
        // background thread finishes late (or whose on-stack code a collection drops first) would
        // make the trace differ run to run; what the engine's own shapes cause does not.
        "--no-concurrent-recompilation",
        "--no-concurrent-osr",
        "--import",
        "tsx",
        fixture,
        path,
      ],
      { encoding: "utf8", timeout: 60_000, maxBuffer: 64 * 1024 * 1024 },
    );
    const at = trace.indexOf("SECOND RUN");
    const first = trace.slice(0, at).split("\n");
    const second = trace.slice(at).split("\n");
    const optimisedInFirst = new Set(
      first
        .filter((l) => l.startsWith("[completed compiling") && turbofan.test(l) && hot(l))
        .map(codeOf),
    );
    const thrownAway = second.filter(
      (l) =>
        (l.includes("bailout") || l.includes("marking dependent code")) &&
        turbofan.test(l) &&
        hot(l),
    );
    const compiledAgain = second.filter(
      (l) =>
        l.startsWith("[compiling method") &&
        turbofan.test(l) &&
        hot(l) &&
        optimisedInFirst.has(codeOf(l)),
    );
    expect({ thrownAway, compiledAgain }).toEqual({ thrownAway: [], compiledAgain: [] });
    // and it is the same backtest: the same answer both times.
    const trades = trace.match(/^trades \d+$/gm);
    expect(trades).toHaveLength(2);
    expect(trades![1]).toBe(trades![0]);
  },
  60_000,
);
