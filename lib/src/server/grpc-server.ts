import http2 from "node:http2";
import type { AddressInfo } from "node:net";
import type { ConnectRouter, Interceptor } from "@connectrpc/connect";
import { connectNodeAdapter } from "@connectrpc/connect-node";
import { serverDeadlineInterceptor } from "./deadline-context.js";
import { assertListenAllowed, type ListenerAuth } from "./listen-guard.js";

export interface RunningServer {
  /** The port actually bound (useful with port 0 in tests). */
  port: number;
  url: string;
  close(): Promise<void>;
}

/**
 * Serves routes over HTTP/2 cleartext: gRPC (stock clients such as grpc-js), Connect and gRPC-web
 * on one port. TLS belongs to the mesh sidecar, not to the service. Refuses to bind a non-loopback
 * host under local auth (assertListenAllowed).
 */
export async function startRpcServer(opts: {
  routes: (router: ConnectRouter) => void;
  interceptors: Interceptor[];
  host: string;
  port: number;
  /** The auth the interceptors enforce; unsaid counts as local, so forgetting it cannot open a port. */
  auth?: ListenerAuth;
}): Promise<RunningServer> {
  assertListenAllowed(opts.host, opts.auth ?? "local");
  // Outermost: the caller's deadline is known to everything the request runs, peer calls included.
  const handler = connectNodeAdapter({
    routes: opts.routes,
    interceptors: [serverDeadlineInterceptor, ...opts.interceptors],
  });
  const server = http2.createServer(handler);
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(opts.port, opts.host, () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  const sessions = new Set<http2.ServerHttp2Session>();
  server.on("session", (s) => {
    sessions.add(s);
    s.on("close", () => sessions.delete(s));
  });
  return {
    port,
    url: `http://${opts.host.includes(":") ? `[${opts.host}]` : opts.host}:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        // Graceful: stop accepting, let in-flight streams finish, then close idle sessions.
        server.close(() => resolve());
        for (const s of sessions) s.close();
      }),
  };
}
