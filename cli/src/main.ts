#!/usr/bin/env -S node --import tsx
// svc: the operator command, a client of the public API.
//   svc halt-all [--reason "..."]      pull the platform switch: every halt route in parallel
//   svc approvals                      promotion requests waiting for a human
//   svc kill-switches                  engaged kill switches
//   svc audit verify                   recompute the audit trail's hash chain; name the first broken row
//   svc report [BOT] [--year YYYY]     the annual validation report (YAML) of a bot, or of the platform
// Environment: SVC_API_URL (default http://127.0.0.1:8080), SVC_TOKEN (a bearer token, with a
// fresh MFA step-up for halt-all; not needed against a local-auth platform).
import { verifyAuditTrail } from "./audit-verify.js";
import { haltAll } from "./halt-all.js";
import { fetchReport } from "./report.js";

const base = (process.env.SVC_API_URL ?? "http://127.0.0.1:8080").replace(/\/$/, "");
const headers: Record<string, string> = process.env.SVC_TOKEN
  ? { authorization: `Bearer ${process.env.SVC_TOKEN}` }
  : {};
const [command, ...args] = process.argv.slice(2);
const option = (name: string) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? args[i + 1] : undefined;
};

async function get(path: string): Promise<unknown> {
  const res = await fetch(`${base}${path}`, { headers });
  const body = await res.json();
  if (!res.ok) throw new Error(`${res.status} ${JSON.stringify(body)}`);
  return body;
}

switch (command) {
  case "halt-all": {
    const results = await haltAll(base, headers, option("reason") ?? "operator halt-all");
    for (const r of results)
      console.log(
        `${r.status === 200 ? "ok  " : "FAIL"} ${String(r.status).padEnd(3)} ${r.route.padEnd(20)} ${r.summary}`,
      );
    process.exit(results.every((r) => r.status === 200) ? 0 : 1);
    break;
  }
  case "approvals":
    console.log(JSON.stringify(await get("/promotion/approvals"), null, 2));
    break;
  case "kill-switches":
    console.log(JSON.stringify(await get("/kill-switches"), null, 2));
    break;
  case "audit": {
    if (args[0] !== "verify") {
      console.error("usage: svc audit verify");
      process.exit(2);
    }
    const v = await verifyAuditTrail(base, headers);
    if (v.broken) {
      console.log(`audit trail BROKEN at seq ${v.broken.seq} (id ${v.broken.id}): ${v.broken.why}`);
      process.exit(1);
    }
    console.log(`audit trail intact: ${v.rows} rows, head hash ${v.headHash ?? "(empty chain)"}`);
    break;
  }
  case "report": {
    const bot = args[0] && !args[0].startsWith("--") ? args[0] : undefined;
    const r = await fetchReport(base, headers, { bot, year: option("year") });
    if (!r.ok) {
      console.error(`report refused: ${r.status} ${r.body}`);
      process.exit(1);
    }
    // The YAML alone on stdout, byte for byte, so `svc report > r.yaml` hashes to the served hash.
    process.stdout.write(r.body);
    console.error(`sha256 ${r.sha256}`);
    break;
  }
  default:
    console.error(
      "usage: svc halt-all [--reason TEXT] | svc approvals | svc kill-switches | svc audit verify | svc report [BOT] [--year YYYY]   (SVC_API_URL, SVC_TOKEN)",
    );
    process.exit(2);
}
