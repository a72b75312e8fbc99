import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ConnectError, createClient, createRouterTransport, Code } from "@connectrpc/connect";
import type { FastifyInstance } from "fastify";
import type { AddressInfo } from "node:net";
import { BotsService, ControlPlaneService } from "@svc/gen/svc/bots/v1/bots_pb.js";
import { KillSwitchService } from "@svc/gen/svc/killswitch/v1/killswitch_pb.js";
import {
  PromotionKind,
  PromotionService,
  PromotionStatus,
  RiskOutcome,
  Verdict,
} from "@svc/gen/svc/promotion/v1/promotion_pb.js";
import { deleteTestStream } from "@svc/lib/bus/testing-streams";
import { loadConfig } from "@svc/lib/config";
import { errorDetailOf } from "@svc/lib/errors";
import { createMemoryStore } from "@svc/lib/kv";
import {
  openPlatform,
  startRpcServer,
  type Platform,
  type RunningServer,
  type ServiceModule,
} from "@svc/lib/server";
import {
  ephemeralStatementKeyPem,
  signStatement,
  statementKeysFromPem,
} from "@svc/lib/signed-statement";
import { createLogger } from "@svc/lib/telemetry";
import { createGateway } from "@svc/gateway";
import { createBotsModule } from "@svc/bots";
import { keysFor, watchKillSwitch } from "@svc/bots/runtime";
import { botsOverNetwork, createKillSwitchModule } from "@svc/killswitch";
import { createPromotionModule } from "@svc/promotion";
import { startPrivateRedis, type PrivateServer } from "../support/private-servers.js";
import { call, testNatsNamespace, testNatsUrl } from "../support/test-platform.js";
import { eventually } from "../support/until.js";

type Engagement = Parameters<Parameters<typeof watchKillSwitch>[0]["onEngage"]>[0];

// Each service on a platform of its own (its own database and connections), as in the
// distributed topology: they meet only on real NATS, the shared Redis, and Connect.
describe("cross-service contracts: typed broadcasts over NATS, the kill-switch gate over Connect", () => {
  const namespace = testNatsNamespace();
  const tokens = ephemeralStatementKeyPem();
  const opened: Platform[] = [];
  const modules: ServiceModule[] = [];
  let redis: PrivateServer;
  let killswitchServer: RunningServer;
  let botsServer: RunningServer;
  let gateway: FastifyInstance;
  let url: string;
  let botsSide: Platform;

  const platformFor = async (name: string, env: Record<string, string> = {}) => {
    const platform = await openPlatform(
      loadConfig({
        SVC_DATA_DIR: "memory://",
        SVC_LOG_LEVEL: "silent",
        SVC_NATS_URL: testNatsUrl(),
        SVC_NATS_NAMESPACE: namespace,
        SVC_REDIS_URL: redis.url,
        SVC_PROMOTION_SIGNING_KEY_PEM: tokens.privateKeyPem,
        SVC_PROMOTION_PUBLIC_KEY_PEM: tokens.publicKeyPem,
        ...env,
      }),
      name,
    );
    opened.push(platform);
    return platform;
  };
  const started = async (m: ServiceModule) => {
    await m.start();
    modules.push(m);
    return m;
  };
  const inProcess = (m: ServiceModule, p: Platform) =>
    createRouterTransport(m.routes, { router: { interceptors: p.interceptors } });

  beforeAll(async () => {
    redis = await startPrivateRedis();
    botsSide = await platformFor("bots");
    const bots = await started(await createBotsModule(botsSide));
    const killswitchSide = await platformFor("killswitch");
    // The standalone killswitch service's own wiring: the bots service over gRPC by address.
    botsServer = await startRpcServer({
      routes: bots.routes,
      interceptors: botsSide.interceptors,
      host: "127.0.0.1",
      port: 0,
    });
    const killswitch = await started(
      await createKillSwitchModule(
        killswitchSide,
        botsOverNetwork(
          { ...killswitchSide.config, serviceUrls: { bots: botsServer.url } },
          killswitchSide.log,
        ),
      ),
    );
    killswitchServer = await startRpcServer({
      routes: killswitch.routes,
      interceptors: killswitchSide.interceptors,
      host: "127.0.0.1",
      port: 0,
    });
    gateway = await createGateway({
      backends: [
        ...[BotsService, ControlPlaneService].map((service) => ({
          service,
          transport: inProcess(bots, botsSide),
        })),
        { service: KillSwitchService, transport: inProcess(killswitch, killswitchSide) },
      ],
      bodyLimitBytes: 1 << 20,
      log: createLogger({ name: "gw", level: "silent" }),
    });
    await gateway.listen({ host: "127.0.0.1", port: 0 });
    url = `http://127.0.0.1:${(gateway.server.address() as AddressInfo).port}`;
  }, 60_000);

  afterAll(async () => {
    await gateway?.close();
    await killswitchServer?.close();
    await botsServer?.close();
    for (const m of modules.reverse()) await m.stop();
    for (const p of opened) await p.close();
    await redis?.stop();
    await deleteTestStream(testNatsUrl(), `${namespace.toUpperCase()}_EVENTS`);
  });

  it("KillSwitchChanged: a switch engaged in the killswitch service reaches the bots runner's watcher", async () => {
    const heard: Array<Engagement | "released"> = [];
    // A key-value store of its own that never holds the key: only the broadcast can tell it.
    const watcher = watchKillSwitch({
      kv: createMemoryStore(),
      bus: botsSide.bus,
      keys: keysFor("watched-1", "contracts"),
      pollMs: 60_000,
      onEngage: (e) => heard.push(e),
      onRelease: () => heard.push("released"),
      onBlind: () => {},
    });
    try {
      const put = await call(url, "PUT", "/kill-switches/contracts-halt", {
        scope: "fleet",
        target: "contracts",
        mode: "flatten",
        reason: "contract test",
      });
      expect(put.status).toBe(200);
      const sentBefore = Date.now();
      await eventually(
        "the watcher hears the engagement",
        () => heard,
        (h) => h.length === 1,
      );
      expect(heard[0]).toEqual({
        key: "svc:bots:killswitch:fleet:contracts",
        mode: "flatten",
        reason: "contract test",
        // The send time the runner measures propagation from; no trace is recorded in this test.
        broadcast: { sentAtMs: expect.any(Number), traceparent: "" },
      });
      const { sentAtMs } = (heard[0] as Engagement).broadcast!;
      expect(sentAtMs).toBeLessThanOrEqual(sentBefore);
      expect(sentAtMs).toBeGreaterThan(sentBefore - 60_000);
      expect((await call(url, "DELETE", "/kill-switches/contracts-halt")).status).toBe(200);
      await eventually(
        "the watcher hears the release",
        () => heard,
        (h) => h.length === 2,
      );
      expect(heard[1]).toBe("released");
    } finally {
      await watcher.stop();
    }
  });

  it("BotPhaseChanged: a paper session of the bots service parks and restarts, and the killswitch drill times it", async () => {
    const bot = await call(url, "POST", "/bots", {
      name: "Phase bot",
      slug: "phase-1",
      kind: "trading",
      fleet: "contracts",
      strategy: { family: "ma_crossover", parameters: { fast: 3, slow: 8 } },
    });
    expect(bot.status).toBe(201);
    // The bots service verifies the token offline and activates the artifact from it.
    const token = await signStatement(
      statementKeysFromPem({ privateKeyPem: tokens.privateKeyPem }).privateKey!,
      {
        request_id: "phase-req",
        kind: "strategy",
        bot_id: bot.body.id,
        version: 1,
        version_hash: bot.body.spec_hash,
      },
      { audience: "svc:bots", ttlSeconds: 600 },
    );
    const session = await call(url, "POST", "/bots/phase-1/paper/start", {
      approved_promotion: token,
      speed: 20,
    });
    expect(session.status).toBe(202);
    await eventually(
      "the paper session runs (the drill has something to halt)",
      () => call(url, "GET", "/bots/phase-1/deployments"),
      (r) => r.body.items[0]?.status === "running",
    );

    // The killswitch service asks the bots service over gRPC which sessions run and how fast.
    const begun = await call(url, "POST", "/kill-switch/drills", { reason: "contract drill" });
    expect(begun.status).toBe(202);
    expect(begun.body.per_bot).toMatchObject([
      { bot_slug: "phase-1", high_frequency: false, verdict: null },
    ]);
    const drill = await eventually(
      "the drill is judged",
      async () => (await call(url, "GET", `/kill-switch/drills/${begun.body.id}`)).body,
      (d) => d.state !== "running",
      30_000,
    );
    expect(drill).toMatchObject({ verdict: "pass", bots: 1, all_restarted: true });
    expect(drill.stopped_max_ms).toBeGreaterThanOrEqual(drill.draining_max_ms);
    await eventually(
      "the session runs again after the drill",
      () => call(url, "GET", "/bots/phase-1/deployments"),
      (r) => r.body.items[0]?.status === "running",
    );
  });

  describe("the standalone promotion service asks the killswitch service over Connect", () => {
    const artifact = { botRef: "gated-1", version: 1, versionHash: "a".repeat(64) };
    const submit = async (promotion: ServiceModule, p: Platform, requestId: string) =>
      createClient(PromotionService, inProcess(promotion, p)).createPromotionRequest(
        {
          requestId,
          kind: PromotionKind.STRATEGY,
          artifact,
          validation: { verdict: Verdict.PASS },
          risk: { decision: RiskOutcome.APPROVE },
        },
        { headers: { "x-svc-local-user": "alice" } },
      );
    // The bot version as the bots service would answer it; the kill-switch check is the subject.
    const botVersion = async () => ({
      bot_id: "gated-id",
      version: 1,
      slug: "gated-1",
      fleet: "gated",
      spec_hash: artifact.versionHash,
    });

    it("denies while the killswitch service says a switch covers the bot's fleet", async () => {
      const p = await platformFor("promotion", { SVC_KILLSWITCH_URL: killswitchServer.url });
      const promotion = await started(await createPromotionModule(p, { botVersion }));
      const put = await call(url, "PUT", "/kill-switches/gated-halt", {
        scope: "fleet",
        target: "gated",
        mode: "cancel",
        reason: "gate test",
      });
      expect(put.status).toBe(200);
      const denied = await submit(promotion, p, "gated-denied");
      expect(denied.status).toBe(PromotionStatus.DENIED);
      expect(denied.gates.find((g) => g.name === "kill_switch_clear")?.detail).toBe(
        "engaged: svc:bots:killswitch:fleet:gated",
      );
      expect((await call(url, "DELETE", "/kill-switches/gated-halt")).status).toBe(200);
      expect((await submit(promotion, p, "gated-pending")).status).toBe(PromotionStatus.PENDING);
    });

    it("fails closed with 503 killswitch_unverifiable, recording nothing, when no killswitch service is configured", async () => {
      const p = await platformFor("promotion");
      const promotion = await started(await createPromotionModule(p, { botVersion }));
      const refused = await submit(promotion, p, "unwired").catch((err: unknown) =>
        ConnectError.from(err),
      );
      expect(refused).toBeInstanceOf(ConnectError);
      const err = refused as ConnectError;
      expect([err.code, errorDetailOf(err).code]).toEqual([
        Code.Unavailable,
        "killswitch_unverifiable",
      ]);
      expect(err.rawMessage).toMatch(/SVC_KILLSWITCH_URL/);
      const stored = await createClient(PromotionService, inProcess(promotion, p))
        .getPromotionRequest({ requestId: "unwired" })
        .catch((e: unknown) => ConnectError.from(e).code);
      expect(stored).toBe(Code.NotFound);
    });
  });
});
