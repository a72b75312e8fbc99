// Child process of the gateway benchmark: the platform with OIDC auth, its gateway reaching the
// services through the in-process hop; the same services' own Connect endpoint (same process,
// same interceptors: the reference); and a second gateway over Connect's in-memory router
// transport (the hop as it was before, which encodes and decodes every message).
import http from "node:http";
import type { AddressInfo } from "node:net";
import { createRouterTransport, type ConnectRouter } from "@connectrpc/connect";
import { connectNodeAdapter } from "@connectrpc/connect-node";
import { loadConfig } from "@svc/lib/config";
import { freshMfaClaims, startTestIdp } from "@svc/lib/auth/testing";
import { createGateway } from "@svc/gateway";
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
const routes = (router: ConnectRouter) => {
  for (const m of running.modules) m.routes(router);
};
const direct = http.createServer(
  connectNodeAdapter({ routes, interceptors: running.platform.interceptors }),
);
await new Promise<void>((resolve) => direct.listen(0, "127.0.0.1", resolve));
const routerTransport = createRouterTransport(routes, {
  router: { interceptors: running.platform.interceptors },
});
const before = await createGateway({
  backends: running.modules.flatMap((m) =>
    m.services.map((service) => ({ service, transport: routerTransport })),
  ),
  bodyLimitBytes: config.bodyLimitBytes,
  log: running.platform.log,
});
await before.listen({ host: "127.0.0.1", port: 0 });
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
const port = (s: http.Server) => (s.address() as AddressInfo).port;
process.stdout.write(
  `${JSON.stringify({
    gateway: running.url,
    direct: `http://127.0.0.1:${port(direct)}`,
    routerTransport: `http://127.0.0.1:${port(before.server)}`,
    token,
  })}\n`,
);
// The parent asks for this process's CPU time around each measure: CPU per request is the figure
// a loaded, shared machine does not distort the way it distorts requests per second.
process.on("message", () => process.send?.(process.cpuUsage()));
process.on("SIGTERM", async () => {
  direct.close();
  await before.close();
  await running.close();
  await idp.stop();
  process.exit(0);
});
