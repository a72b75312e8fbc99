// Records builtin-golden.json: each case of builtin-cases.fixture.ts run through the families as
// they stand. It was run once, on the hand-written families (commit bdf0dd91), before they were
// rewritten on the SDK; builtin-golden.test.ts holds every later run to it. Run again only to add
// a case, and then only the new case's line is news: the others must come out the same.
// Usage: npx tsx services/bots/src/engine/strategies/write-builtin-golden.ts
import fs from "node:fs";
import { BUILT_IN_CASES, digest, runCase } from "./builtin-cases.fixture.js";
import { resolveStrategy } from "./registry.js";

const out = [];
for (const c of BUILT_IN_CASES) {
  const record = await runCase(c, (p) => resolveStrategy(c.family, p).family.create(p));
  out.push({
    name: c.name,
    bars: record.metrics.bars,
    trades: record.metrics.trades,
    finalEquity: record.metrics.finalEquity,
    digest: digest(record),
  });
}
const file = new URL("./builtin-golden.json", import.meta.url);
fs.writeFileSync(file, JSON.stringify({ cases: out }, null, 2) + "\n");
console.log(`${out.length} cases written to ${file.pathname}`);
