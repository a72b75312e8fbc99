import { create } from "@bufbuild/protobuf";
import { afterEach, describe, expect, it } from "vitest";
import {
  KillSwitchSchema,
  ListKillSwitchesResponseSchema,
  Mode,
  Scope,
  type KillSwitch,
} from "@svc/gen/svc/killswitch/v1/killswitch_pb.js";
import { createKubeClient } from "@svc/lib/kube";
import { createLogger } from "@svc/lib/telemetry";
import { startMockKubeApi } from "../../../../test/support/mock-kube-api.js";
import { eventually } from "../../../../test/support/until.js";
import { startKillSwitchController, type KillSwitchController } from "./controller.js";
import type { Handlers } from "./carry-out.js";

// The controller against the stand-in API server, with the service's handlers replaced by a
// list of switches: what it decides while it cannot see the cluster.
describe("KillSwitch controller before its caches are filled", () => {
  let controller: KillSwitchController | undefined;
  let kube: Awaited<ReturnType<typeof startMockKubeApi>> | undefined;
  afterEach(async () => {
    kube?.resume();
    await controller?.stop();
    await kube?.stop();
  });

  it("releases nothing while the API server cannot be listed, and releases an orphan once it can", async () => {
    kube = await startMockKubeApi("t");
    const switches: KillSwitch[] = [
      create(KillSwitchSchema, {
        metadata: { name: "k8s-orphan" },
        spec: { scope: Scope.PLATFORM, target: "platform", mode: Mode.CANCEL, reason: "" },
        status: { engaged: true },
      }),
    ];
    const released: string[] = [];
    const handlers = {
      listKillSwitches: async () => create(ListKillSwitchesResponseSchema, { items: switches }),
      applyKillSwitch: async () => {
        throw new Error("nothing to apply in this test");
      },
      deleteKillSwitch: async (req: { name: string }) => {
        released.push(req.name);
        return { name: req.name, released: true };
      },
    } as unknown as Handlers;
    kube.hang();
    controller = startKillSwitchController({
      kube: createKubeClient({ apiUrl: kube.url, namespace: "svc", token: "t", timeoutMs: 300 }),
      handlers,
      log: createLogger({ name: "test", level: "silent" }),
      resyncMs: 100,
      backoff: { minMs: 50, maxMs: 200 },
    });
    await eventually(
      "both lists time out and are tried again",
      () => kube!.requests.filter((r) => r.held && r.path.endsWith("/killswitches")).length,
      (n) => n >= 2,
    );
    // Every resync pass so far had empty caches: an orphan then is indistinguishable from a
    // CR not yet seen, so nothing was released.
    expect(await controller.pass()).toEqual([]);
    expect(released).toEqual([]);
    kube.resume();
    await eventually(
      "the orphan is released",
      () => released,
      (r) => r.includes("k8s-orphan"),
    );
  });
});
