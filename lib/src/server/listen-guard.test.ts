import { afterEach, describe, expect, it, vi } from "vitest";
import { assertListenAllowed, isLoopbackHost } from "./listen-guard.js";
import { startRpcServer } from "./grpc-server.js";
import { runStandalone } from "./run-standalone.js";

const WHY =
  /SVC_AUTH_PROVIDER=local gives every caller full rights, so it only listens on loopback .*SVC_HOST=0\.0\.0\.0 is not\. Configure SVC_AUTH_PROVIDER=oidc/;

describe("assertListenAllowed", () => {
  it.each(["127.0.0.1", "127.1.2.3", "::1", "[::1]", "localhost", "LOCALHOST", "::ffff:127.0.0.1"])(
    "lets local auth listen on %s",
    (host) => {
      expect(isLoopbackHost(host)).toBe(true);
      expect(() => assertListenAllowed(host, "local")).not.toThrow();
    },
  );

  it.each([
    "0.0.0.0",
    "::",
    "192.168.1.2",
    "10.0.0.1",
    "example.com",
    "128.0.0.1",
    "",
    "::ffff:10.0.0.1",
  ])("refuses local auth on %s, explaining why", (host) => {
    expect(() => assertListenAllowed(host, "local")).toThrow(/only listens on loopback/);
    expect(() => assertListenAllowed(host, "oidc")).not.toThrow();
  });
});

describe("a standalone service with local auth and a public host", () => {
  afterEach(() => {
    vi.unstubAllEnvs();
  });

  it("startRpcServer refuses 0.0.0.0 under local auth, and when the auth is not said", async () => {
    const opts = { routes: () => {}, interceptors: [], host: "0.0.0.0", port: 0 };
    await expect(startRpcServer({ ...opts, auth: "local" })).rejects.toThrow(WHY);
    await expect(startRpcServer(opts)).rejects.toThrow(WHY);
  });

  it("startRpcServer still serves loopback under local auth", async () => {
    const server = await startRpcServer({
      routes: () => {},
      interceptors: [],
      host: "127.0.0.1",
      port: 0,
      auth: "local",
    });
    expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    await server.close();
  });

  it("runStandalone refuses SVC_HOST=0.0.0.0 with SVC_AUTH_PROVIDER=local before opening anything", async () => {
    vi.stubEnv("SVC_HOST", "0.0.0.0");
    vi.stubEnv("SVC_AUTH_PROVIDER", "local");
    vi.stubEnv("SVC_DATA_DIR", "memory://");
    vi.stubEnv("SVC_LOG_LEVEL", "silent");
    const build = vi.fn();
    await expect(runStandalone("probe", build)).rejects.toThrow(WHY);
    expect(build).not.toHaveBeenCalled();
  });
});
