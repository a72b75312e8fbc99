import { Code, ConnectError } from "@connectrpc/connect";
import { describe, expect, it } from "vitest";
import type { GetAgentHaltsResponse } from "@svc/gen/svc/killswitch/v1/killswitch_pb.js";
import { errorDetailOf } from "@svc/lib/errors";
import { createMemoryStore, type KeyValueStore } from "@svc/lib/kv";
import { createAgentHaltStateHandlers } from "./agent-halt-state.js";

const read = async (kv: KeyValueStore) =>
  (await createAgentHaltStateHandlers({ kv }).getAgentHalts(
    {} as never,
    {} as never,
  )) as GetAgentHaltsResponse;

describe("the agent switches' state", () => {
  it("reads both keys: who engaged one, when and why, a value set by hand as its reason", async () => {
    const kv = createMemoryStore();
    await kv.set(
      "svc:agents:halt:all",
      JSON.stringify({ reason: "drill", by: "user|op", at: "2026-11-26T10:00:00.000Z" }),
    );
    await kv.set("svc:agents:halt:research", "set by hand");
    const [agents, quant] = (await read(kv)).items;
    expect(agents).toMatchObject({
      scope: "agents",
      key: "svc:agents:halt:all",
      engaged: true,
      reason: "drill",
      engagedBy: "user|op",
    });
    expect(agents!.engagedAt?.seconds).toBe(BigInt(Date.parse("2026-11-26T10:00:00Z") / 1000));
    expect(quant).toMatchObject({ scope: "quant_agents", engaged: true, reason: "set by hand" });
    expect(quant!.engagedAt).toBeUndefined();

    await kv.delete("svc:agents:halt:all");
    expect((await read(kv)).items[0]).toMatchObject({ engaged: false, reason: "" });
  });

  it("answers 503 when the store does not, never 'not engaged'", async () => {
    const down = {
      ...createMemoryStore(),
      getMany: () => Promise.reject(new Error("connection refused")),
    };
    const err = await read(down).then(
      () => undefined,
      (e: unknown) => ConnectError.from(e),
    );
    expect(err?.code).toBe(Code.Unavailable);
    expect(errorDetailOf(err!).code).toBe("killswitch_store_unreachable");
  });
});
