import { create } from "@bufbuild/protobuf";
import {
  ConnectError,
  createContextValues,
  createHandlerContext,
  type ServiceImpl,
} from "@connectrpc/connect";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  DrillVerdict,
  KillSwitchService,
  ListDrillsRequestSchema,
  RunDrillRequestSchema,
} from "@svc/gen/svc/killswitch/v1/killswitch_pb.js";
import { localPrincipal, principalKey } from "@svc/lib/auth";
import { loadConfig } from "@svc/lib/config";
import { PLATFORM_KILL_SWITCH_KEY } from "@svc/lib/contracts";
import { errorDetailOf } from "@svc/lib/errors";
import { openPlatform, type Platform, type ServiceModule } from "@svc/lib/server";
import type { RosterEntry } from "../clients/drill-roster.js";
import { createKillSwitchModule } from "../index.js";

type Handlers = ServiceImpl<typeof KillSwitchService>;

/** The module's handlers as its router would serve them. */
function handlersOf(module: ServiceModule): Handlers {
  let served: Handlers | undefined;
  module.routes({
    service: (_desc: unknown, impl: Handlers) => {
      served = impl;
    },
  } as never);
  return served!;
}

const running: RosterEntry = {
  taskId: "paper-1",
  botId: "00000000-0000-4000-8000-000000000001",
  slug: "momentum",
  highFrequencyFlag: false,
  timeframe: "1m",
};

/**
 * A drill halts every running bot. The caller whose request ended while the roster was read has
 * already been told it failed: engaging then would halt the platform for a drill nobody watches.
 */
describe("a drill whose caller is gone by the time the roster is read", () => {
  let platform: Platform;
  let module: ServiceModule | undefined;
  let handlers: Handlers;
  let roster: () => Promise<RosterEntry[]>;

  beforeAll(async () => {
    platform = await openPlatform(
      loadConfig({ SVC_DATA_DIR: "memory://", SVC_LOG_LEVEL: "silent" }),
      "killswitch",
    );
    module = await createKillSwitchModule(platform, { drillRoster: () => roster() });
    handlers = handlersOf(module);
  }, 60_000);
  afterAll(async () => {
    await module?.stop();
    await platform?.close();
  });

  const contextFor = (signal: AbortSignal) =>
    createHandlerContext({
      service: KillSwitchService,
      method: KillSwitchService.method.runDrill,
      protocolName: "connect",
      requestMethod: "POST",
      url: "http://in-test/svc.killswitch.v1.KillSwitchService/RunDrill",
      requestSignal: signal,
      contextValues: createContextValues().set(principalKey, localPrincipal(new Headers())),
    });

  it("engages nothing, records nothing, and leaves the next drill free to start", async () => {
    const caller = new AbortController();
    roster = () => {
      caller.abort();
      return Promise.resolve([running]);
    };
    const refused = await Promise.resolve(
      handlers.runDrill(
        create(RunDrillRequestSchema, { reason: "caller leaves" }),
        contextFor(caller.signal),
      ),
    ).then(
      () => undefined,
      (err: unknown) => ConnectError.from(err),
    );
    expect(refused && errorDetailOf(refused).code).toBe("drill_caller_gone");
    expect(await platform.kv.get(PLATFORM_KILL_SWITCH_KEY)).toBeNull();
    const drills = await handlers.listDrills(
      create(ListDrillsRequestSchema, {}),
      contextFor(new AbortController().signal),
    );
    expect(drills.items).toEqual([]);

    roster = () => Promise.resolve([]);
    const next = await handlers.runDrill(
      create(RunDrillRequestSchema, { reason: "caller stays" }),
      contextFor(new AbortController().signal),
    );
    expect(next.verdict).toBe(DrillVerdict.NO_BOTS);
    expect(await platform.kv.get(PLATFORM_KILL_SWITCH_KEY)).toBeNull();
  });
});
