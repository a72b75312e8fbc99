// Child process of the gateway benchmark: the platform with OIDC auth (gateway on one port) and
// the bots service's own Connect endpoint (same process, same interceptors) on another.
import http from "node:http";
import type { AddressInfo } from "node:net";
import { connectNodeAdapter } from "@connectrpc/connect-node";
import { loadConfig } from "@svc/lib/config";
import { freshMfaClaims, startTestIdp } from "@svc/lib/auth/testing";
import { startPlatform } from "@svc/all-in-one";

const idp = await startTestIdp();
const config = loadConfig({
  SVC_PORT: "0",
  SVC_DATA_DIR: "memory://",
  SVC_LOG_LEVEL: "silent",
  SVC_AUTH_PROVIDER: "oidc",
  SVC_AUTH_OIDC_ISSUER: idp.issuer,
  SVC_AUTH_OIDC_AUDIENCE: idp.audience,
  SVC_AUTH_M2M_ENABLED: "true",
});
const running = await startPlatform(config);
// The bench user logs in as the post-login hook would make it: a member of its org (strict
// enforcement checks the membership rows on every call, as in production).
const synced = await fetch(`${running.url}/_internal/oidc/sync`, {
  method: "POST",
  headers: {
    authorization: `Bearer ${await idp.sign({ sub: "hook@clients", gty: "client-credentials" })}`,
    "content-type": "application/json",
  },
  body: JSON.stringify({
    user_id: "user|bench",
    email: "bench@svc.test",
    organization_id: "bench-org",
  }),
});
if (synced.status !== 200)
  throw new Error(`could not provision the bench user: ${synced.status} ${await synced.text()}`);
const bots = running.modules.find((m) => m.name === "bots")!;
const direct = http.createServer(
  connectNodeAdapter({ routes: bots.routes, interceptors: running.platform.interceptors }),
);
await new Promise<void>((resolve) => direct.listen(0, "127.0.0.1", resolve));
const token = await idp.sign(freshMfaClaims("user|bench", ["read:bots", "write:bots"]), {
  expiresIn: "2h",
});
const created = await fetch(`${running.url}/bots`, {
  method: "POST",
  headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
  body: JSON.stringify({
    name: "Bench bot",
    kind: "trading",
    strategy: { family: "ma_crossover", parameters: { fast: 10, slow: 30 } },
  }),
});
if (created.status !== 201)
  throw new Error(`could not create the bench bot: ${created.status} ${await created.text()}`);
process.stdout.write(
  `${JSON.stringify({ gateway: running.url, direct: `http://127.0.0.1:${(direct.address() as AddressInfo).port}`, token })}\n`,
);
process.on("SIGTERM", async () => {
  direct.close();
  await running.close();
  await idp.stop();
  process.exit(0);
});
