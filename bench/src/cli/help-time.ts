// bench/cli: how long `svc --help` takes, as the bin runs it (node --import tsx cli/src/main.ts),
// beside the floors it cannot go under on this machine now (node itself, node with tsx and an
// empty file) and the whole command tree loaded (`svc completion bash` imports every command
// module, the strategy checker among them: what --help cost when the tree was loaded eagerly).
// Wall and CPU time (user + system, steadier on a shared machine) per run, from /usr/bin/time;
// the variants alternate, so a burst of load elsewhere falls on all of them alike.
// Usage: npm run -w bench cli-help -- [--runs 15] [--out results/cli-help.json]
import { execFileSync } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { machine } from "../machine.js";

const arg = (name: string) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : undefined;
};
const runs = Number(arg("runs") ?? 15);
const root = fileURLToPath(new URL("../../../", import.meta.url));
const out = arg("out") ?? join(root, "bench/results/cli-help.json");
const empty = join(mkdtempSync(join(tmpdir(), "svc-help-")), "empty.ts");
writeFileSync(empty, "export {};\n");
const main = join(root, "cli/src/main.ts");

const VARIANTS: Record<string, string[]> = {
  "svc --help": ["node", "--import", "tsx", main, "--help"],
  "svc bots --help (one module loaded)": ["node", "--import", "tsx", main, "bots", "--help"],
  "whole tree loaded (svc completion bash)": [
    "node",
    "--import",
    "tsx",
    main,
    "completion",
    "bash",
  ],
  "floor: node -e ''": ["node", "-e", ""],
  "floor: node --import tsx (empty file)": ["node", "--import", "tsx", empty],
};

/** One run: wall, user and system seconds as /usr/bin/time measures the child. */
function once(command: string[]): { wall: number; cpu: number } {
  const timeFile = join(tmpdir(), `svc-help-time-${process.pid}`);
  execFileSync("/usr/bin/time", ["-o", timeFile, "-f", "%e %U %S", ...command], {
    cwd: root,
    stdio: "ignore",
  });
  const [wall, user, sys] = execFileSync("cat", [timeFile], { encoding: "utf8" })
    .trim()
    .split(/\s+/)
    .map(Number) as [number, number, number];
  return { wall, cpu: user + sys };
}

const percentile = (xs: number[], q: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(q * s.length))]!;
};
const ms = (s: number) => Math.round(s * 1000);

const load = () => loadavg().map((l) => Math.round(l * 100) / 100);
const loadBefore = load();
// One untimed run of each: tsx's transform cache is warm for every variant alike.
for (const command of Object.values(VARIANTS)) once(command);
const samples: Record<string, Array<{ wall: number; cpu: number }>> = {};
for (let i = 0; i < runs; i++)
  for (const [name, command] of Object.entries(VARIANTS))
    (samples[name] ??= []).push(once(command));
const loadAfter = load();

const figures = Object.fromEntries(
  Object.entries(samples).map(([name, xs]) => [
    name,
    {
      wall_ms_median: ms(
        percentile(
          xs.map((x) => x.wall),
          0.5,
        ),
      ),
      wall_ms_p90: ms(
        percentile(
          xs.map((x) => x.wall),
          0.9,
        ),
      ),
      wall_ms_min: ms(Math.min(...xs.map((x) => x.wall))),
      cpu_ms_median: ms(
        percentile(
          xs.map((x) => x.cpu),
          0.5,
        ),
      ),
    },
  ]),
);
const result = {
  bench: "cli-help",
  runs,
  machine: machine(),
  load_average_1_5_15: { before: loadBefore, after: loadAfter },
  figures,
};
writeFileSync(out, `${JSON.stringify(result, null, 2)}\n`);
console.log(JSON.stringify(result, null, 2));
