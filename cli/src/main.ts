#!/usr/bin/env -S node --import tsx
// svc: the operator command, a client of the public API.
//   svc halt-all [--reason "..."]      pull the platform switch: every halt route in parallel
//   svc approvals                      promotion requests waiting for a human
//   svc kill-switches                  engaged kill switches
// Environment: SVC_API_URL (default http://127.0.0.1:8080), SVC_TOKEN (a bearer token, with a
// fresh MFA step-up for halt-all; not needed against a local-auth platform).
import { haltAll } from "./halt-all.js";

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
  default:
    console.error(
      "usage: svc halt-all [--reason TEXT] | svc approvals | svc kill-switches   (SVC_API_URL, SVC_TOKEN)",
    );
    process.exit(2);
}
