// Where a CPU profile's time went: self time by function and by file (package), idle apart.
// Usage: npx tsx bench/src/backtest/profile-summary.ts FILE.cpuprofile [--top 30]
import { readFileSync } from "node:fs";

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
  startTime: number;
  endTime: number;
}

const file = process.argv[2];
if (!file) throw new Error("usage: profile-summary.ts FILE.cpuprofile [--top N]");
const at = process.argv.indexOf("--top");
const TOP = at > 0 ? Number(process.argv[at + 1]) : 30;
const profile = JSON.parse(readFileSync(file, "utf8")) as Profile;
const byId = new Map(profile.nodes.map((n) => [n.id, n]));

// Each sample's time is the delta to the next one (the last sample's is unknown: 0).
const selfUs = new Map<number, number>();
profile.samples.forEach((id, i) => {
  const dt = profile.timeDeltas[i + 1] ?? 0;
  selfUs.set(id, (selfUs.get(id) ?? 0) + dt);
});

const shortUrl = (url: string) => {
  const nm = url.lastIndexOf("node_modules/");
  if (nm >= 0) return url.slice(nm + 13);
  const wt = url.indexOf("/src/");
  return wt >= 0 ? url.slice(url.lastIndexOf("/", wt - 1) + 1) : url || "(native)";
};
const packageOf = (url: string) => {
  const nm = url.lastIndexOf("node_modules/");
  if (nm < 0) return url.startsWith("node:") ? url : shortUrl(url);
  const rest = url.slice(nm + 13).split("/");
  return rest[0]!.startsWith("@") ? `${rest[0]}/${rest[1]}` : rest[0]!;
};

const parent = new Map<number, number>();
for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
const keyOf = (n: ProfileNode) =>
  `${n.callFrame.functionName || "(anonymous)"} ${shortUrl(n.callFrame.url)}:${n.callFrame.lineNumber + 1}`;
// Inclusive time of the project's own functions (not node_modules, not node:): who asked for it.
const inclusive = new Map<string, number>();
for (const [id, us] of selfUs) {
  if (byId.get(id)!.callFrame.functionName === "(idle)") continue;
  const seen = new Set<string>();
  for (let n: number | undefined = id; n !== undefined; n = parent.get(n)) {
    const node = byId.get(n)!;
    const url = node.callFrame.url;
    if (!url || url.includes("node_modules") || url.startsWith("node:")) continue;
    const k = keyOf(node);
    if (seen.has(k)) continue;
    seen.add(k);
    inclusive.set(k, (inclusive.get(k) ?? 0) + us);
  }
}

const fns = new Map<string, number>();
const files = new Map<string, number>();
let total = 0;
let idle = 0;
for (const [id, us] of selfUs) {
  const { functionName, url, lineNumber } = byId.get(id)!.callFrame;
  total += us;
  if (functionName === "(idle)") {
    idle += us;
    continue;
  }
  const key = `${functionName || "(anonymous)"} ${shortUrl(url)}:${lineNumber + 1}`;
  fns.set(key, (fns.get(key) ?? 0) + us);
  const pkg = url ? packageOf(url) : functionName;
  files.set(pkg, (files.get(pkg) ?? 0) + us);
}
const busy = total - idle;
const ms = (us: number) => (us / 1000).toFixed(0).padStart(7);
const pct = (us: number) => ((100 * us) / busy).toFixed(1).padStart(5);
console.log(
  `profile ${((profile.endTime - profile.startTime) / 1e6).toFixed(1)} s; busy ${ms(busy)} ms, idle ${ms(idle)} ms`,
);
console.log(`\nself time by function (top ${TOP}), ms and % of busy:`);
for (const [k, us] of [...fns].sort((a, b) => b[1] - a[1]).slice(0, TOP))
  console.log(`${ms(us)} ${pct(us)}%  ${k}`);
console.log(`\nself time by package or file (top ${TOP}):`);
for (const [k, us] of [...files].sort((a, b) => b[1] - a[1]).slice(0, TOP))
  console.log(`${ms(us)} ${pct(us)}%  ${k}`);
console.log(`\ninclusive time of the project's functions (top ${TOP}):`);
for (const [k, us] of [...inclusive].sort((a, b) => b[1] - a[1]).slice(0, TOP))
  console.log(`${ms(us)} ${pct(us)}%  ${k}`);
