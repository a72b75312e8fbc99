import { loadConfig } from "../config/index.js";
import { closeOnSignals } from "./shutdown.js";
import { healthRoutes } from "./health.js";
import { startRpcServer } from "./grpc-server.js";
import { assertListenAllowed } from "./listen-guard.js";
import { membershipOverNetwork } from "./membership-over-network.js";
import { openPlatform, type Platform, type ServiceModule } from "./platform.js";

/**
 * The whole `main.ts` of a service in the distributed topology: read the configuration, open the
 * real Postgres/NATS/Redis it names, migrate, serve gRPC + Connect with health, stop gracefully.
 */
export async function runStandalone(
  name: string,
  build: (platform: Platform) => Promise<ServiceModule>,
): Promise<void> {
  const config = loadConfig();
  // Before any store is opened or migrated: a process that must not listen should touch nothing.
  assertListenAllowed(config.host, config.auth.provider);
  const platform = await openPlatform(config, name);
  // The identity service answers membership from its own store; every other asks it.
  if (name !== "identity") membershipOverNetwork(platform, name, config, platform.log);
  const module = await build(platform);
  await module.start();
  const server = await startRpcServer({
    routes: (router) => {
      module.routes(router);
      healthRoutes(
        module.services.map((s) => s.typeName),
        platform.ready,
      )(router);
    },
    interceptors: platform.interceptors,
    host: config.host,
    port: config.grpcPort,
    auth: config.auth.provider,
  });
  platform.log.info(
    { url: server.url, services: module.services.map((s) => s.typeName) },
    `${name} service listening (gRPC, Connect, gRPC-web)`,
  );
  closeOnSignals(platform.log, [server.close, module.stop, platform.close]);
}
