import type { AddressInfo } from "node:net";
import { createClient, createRouterTransport } from "@connectrpc/connect";
import { KillSwitchService } from "@svc/gen/svc/killswitch/v1/killswitch_pb.js";
import { BotsService } from "@svc/gen/svc/bots/v1/bots_pb.js";
import type { FastifyInstance } from "fastify";
import type { Config } from "@svc/lib/config";
import { ephemeralStatementKeyPem } from "@svc/lib/signed-statement";
import {
  assertListenAllowed,
  createInProcessTransport,
  healthRoutes,
  internalInterceptors,
  lazyTransport,
  openPlatform,
  type Platform,
  type ServiceModule,
} from "@svc/lib/server";
import { closeGateway, createGateway } from "@svc/gateway";
import { createBotsModule } from "@svc/bots";
import {
  botVersionsFrom,
  createPromotionModule,
  killSwitchFrom,
  trialReturnsFrom,
} from "@svc/promotion";
import { botExistsFrom, createKillSwitchModule, drillRosterFrom } from "@svc/killswitch";
import {
  createComplianceModule,
  reportDeadlineMs,
  reportSourcesFrom,
  runDeadlineMs,
  startRunFrom,
} from "@svc/compliance";
import { createIdentityModule, type McpClients } from "@svc/identity";
import { PromotionService } from "@svc/gen/svc/promotion/v1/promotion_pb.js";

export interface RunningPlatform {
  url: string;
  app: FastifyInstance;
  platform: Platform;
  modules: ServiceModule[];
  close(): Promise<void>;
}

/**
 * Every service and the gateway in one process: the services share one database (a schema
 * each), one bus and one key-value store, and the gateway reaches them through an in-process
 * transport that runs the same interceptors a standalone service runs without encoding messages.
 */
export async function startPlatform(
  config: Config,
  overrides: Parameters<typeof openPlatform>[2] = {},
): Promise<RunningPlatform> {
  assertListenAllowed(config.host, config.auth.provider);
  if (!config.promotionTokens.signingKeyPem) {
    // One process holds both ends: an ephemeral pair (tokens do not survive a restart).
    const pair = ephemeralStatementKeyPem();
    config = {
      ...config,
      promotionTokens: { signingKeyPem: pair.privateKeyPem, publicKeyPem: pair.publicKeyPem },
    };
  }
  const platform = await openPlatform(config, "svc", overrides);
  // The MCP data tools ask the bots and promotion services, created after identity.
  const mcp: { clients?: McpClients } = {};
  const identity = await createIdentityModule(platform, { mcpClients: () => mcp.clients });
  // Research chat calls its tools through this process's own MCP endpoint, known once it listens.
  const edge: { url?: string } = {};
  const bots = await createBotsModule(platform, {
    mcpUrl: () => (edge.url ? `${edge.url}/mcp` : undefined),
  });
  // Services ask the bots service, the owner, for a bot their projections have not seen yet.
  // Each client's router is built on its first call, off the start's critical path.
  const botsClientFor = (caller: string) =>
    createClient(
      BotsService,
      lazyTransport(() =>
        createRouterTransport(bots.routes, {
          router: { interceptors: internalInterceptors(platform.log, caller) },
        }),
      ),
    );
  const killswitch = await createKillSwitchModule(platform, {
    botExists: botExistsFrom(botsClientFor("killswitch"), config.timeouts.dbMs),
    drillRoster: drillRosterFrom(botsClientFor("killswitch"), config.timeouts.dbMs),
  });
  // The promotion gates ask the killswitch service over Connect, in-process, as the promotion
  // service: on every create, so without encoding the messages (the same interceptors run).
  const killSwitchClient = createClient(
    KillSwitchService,
    createInProcessTransport(killswitch.routes, {
      interceptors: internalInterceptors(platform.log, "promotion"),
    }),
  );
  const botsClient = botsClientFor("promotion");
  const promotion = await createPromotionModule(platform, {
    killSwitch: killSwitchFrom(killSwitchClient, config.timeouts.kvMs * 3),
    botVersion: (botRef, version) =>
      botVersionsFrom(botsClient, config.timeouts.dbMs)(botRef, version),
    trialReturns: trialReturnsFrom(botsClient, config.timeouts.dbMs),
  });
  mcp.clients = {
    bots: botsClientFor("identity"),
    promotion: createClient(
      PromotionService,
      lazyTransport(() =>
        createRouterTransport(promotion.routes, {
          router: { interceptors: internalInterceptors(platform.log, "identity") },
        }),
      ),
    ),
  };
  const modules: ServiceModule[] = [
    identity,
    bots,
    promotion,
    killswitch,
    // Conformance and stress runs execute in the bots service, asked over Connect as compliance;
    // reports read the bots service's runs and the killswitch service's drills the same way.
    await createComplianceModule(platform, {
      startRun: startRunFrom(botsClientFor("compliance"), runDeadlineMs(config)),
      reportSources: reportSourcesFrom(
        botsClientFor("compliance"),
        createClient(
          KillSwitchService,
          lazyTransport(() =>
            createRouterTransport(killswitch.routes, {
              router: { interceptors: internalInterceptors(platform.log, "compliance") },
            }),
          ),
        ),
        reportDeadlineMs(config),
      ),
    }),
  ];
  for (const m of modules) await m.start();
  // The gateway builds each input afresh and only reads the answer: the messages are shared.
  const transport = createInProcessTransport(
    (router) => {
      for (const m of modules) m.routes(router);
      healthRoutes(
        modules.flatMap((m) => m.services.map((s) => s.typeName)),
        platform.ready,
      )(router);
    },
    { interceptors: platform.interceptors, messages: "share" },
  );
  const backends = modules.flatMap((m) => m.services.map((service) => ({ service, transport })));
  const app = await createGateway({
    backends,
    bodyLimitBytes: config.bodyLimitBytes,
    textBodyLimitBytes: config.datasetMaxBytes,
    requestGuard: { provider: config.auth.provider, publicUrl: config.login.publicUrl },
    log: platform.log,
  });
  await app.listen({ host: config.host, port: config.port });
  const { port } = app.server.address() as AddressInfo;
  const host = config.host.includes(":") ? `[${config.host}]` : config.host;
  edge.url = `http://${host === "0.0.0.0" ? "127.0.0.1" : host}:${port}`;
  return {
    url: `http://${host}:${port}`,
    app,
    platform,
    modules,
    async close() {
      await closeGateway(app);
      for (const m of modules) await m.stop();
      await platform.close();
    },
  };
}
