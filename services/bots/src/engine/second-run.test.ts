import { execFileSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { expect, it } from "vitest";

const fixture = fileURLToPath(new URL("./second-run.fixture.ts", import.meta.url));
/** The engine's functions that run per bar or per order. */
const HOT = [
  "feedBars",
  "scan",
  "onBar",
  "resum",
  "deepen",
  "close",
  "halve",
  "newDay",
  "wouldMove",
  "decide",
  "ordersForTarget",
  "place",
  "PlacedOrder",
  "fillWorking",
  "fill",
  "booked",
  "apply",
];
const names = (line: string) => [...line.matchAll(/(?:JSFunction|SharedFunctionInfo) (\w+)/g)];
const hot = (line: string) => names(line).some((m) => HOT.includes(m[1]!));

it("a second backtest in a long-running process runs on the code compiled for the first: none of the engine's hot functions is deoptimised or compiled again", () => {
  const trace = execFileSync(
    process.execPath,
    ["--expose-gc", "--trace-deopt", "--trace-opt", "--import", "tsx", fixture],
    { encoding: "utf8", timeout: 60_000, maxBuffer: 64 * 1024 * 1024 },
  );
  const second = trace.slice(trace.indexOf("SECOND RUN")).split("\n");
  const thrownAway = second.filter(
    (l) => (l.includes("bailout") || l.includes("marking dependent code")) && hot(l),
  );
  const compiledAgain = second.filter((l) => l.startsWith("[compiling method") && hot(l));
  expect({ thrownAway, compiledAgain }).toEqual({ thrownAway: [], compiledAgain: [] });
  // and it is the same backtest: the same answer both times.
  const trades = trace.match(/^trades \d+$/gm);
  expect(trades).toHaveLength(2);
  expect(trades![1]).toBe(trades![0]);
}, 60_000);
