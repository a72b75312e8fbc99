// What signing checkpoints of the audit chain costs its append rate: the same backlog of audit
// events appended with no checkpoint key and with one, on Postgres, alternated three times.
// Usage: npx tsx bench/src/identity/audit-checkpoint-cost.ts [--events 2000] [--out FILE]
import { generateKeyPairSync } from "node:crypto";
import { writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { machine } from "../machine.js";
import { auditRowsPerSecond } from "./audit-rate.js";

const arg = (name: string, fallback: string) => {
  const at = process.argv.indexOf(`--${name}`);
  return at > 0 ? process.argv[at + 1]! : fallback;
};
const EVENTS = Number(arg("events", "2000"));
const OUT = arg(
  "out",
  fileURLToPath(new URL("../../results/audit-checkpoint-cost.json", import.meta.url)),
);
const key = generateKeyPairSync("ed25519").privateKey.export({ type: "pkcs8", format: "pem" });

const runs: Array<{ checkpoints: boolean; rows_per_s: number; intact: boolean }> = [];
for (let i = 0; i < 3; i++)
  for (const checkpoints of [false, true]) {
    const r = await auditRowsPerSecond("postgres", EVENTS, checkpoints ? String(key) : undefined);
    runs.push({ checkpoints, rows_per_s: r.rows_per_s, intact: r.chain.intact });
  }
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const without = median(runs.filter((r) => !r.checkpoints).map((r) => r.rows_per_s));
const withKey = median(runs.filter((r) => r.checkpoints).map((r) => r.rows_per_s));
const result = {
  machine: machine(),
  events: EVENTS,
  runs,
  rows_per_s_median: { without_checkpoints: without, with_checkpoints: withKey },
  with_of_without: Math.round((withKey / without) * 100) / 100,
};
writeFileSync(OUT, JSON.stringify(result, null, 2) + "\n");
console.log(JSON.stringify(result, null, 2));
