import { randomBytes, randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createMemoryBus, createNatsBus, type BusMessage, type EventBus } from "./index.js";
import { deleteTestStream } from "./testing-streams.js";

const natsUrl = process.env.SVC_TEST_NATS_URL ?? "nats://127.0.0.1:4222";
const until = async (cond: () => boolean, ms = 5_000) => {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error("condition not met in time");
    await new Promise((r) => setTimeout(r, 10));
  }
};

const tag = randomBytes(4).toString("hex");
describe.each([
  ["in-process", "svc", () => Promise.resolve(createMemoryBus({ redeliveryDelayMs: 10 }))],
  // Each run gets its own stream over its own subject space, so parallel runs never meet.
  [
    "NATS JetStream",
    `t${tag}`,
    () => createNatsBus({ url: natsUrl, stream: `SVC_TEST_${tag}`, subjects: [`t${tag}.>`] }),
  ],
] as const)("event bus: %s", (_name, p, open) => {
  let bus: EventBus;
  beforeAll(async () => {
    bus = await open();
  });
  afterAll(async () => {
    await bus.close();
    if (p !== "svc") await deleteTestStream(natsUrl, `SVC_TEST_${tag}`);
  });

  it("delivers once per durable group and drops a re-publish of the same message id", async () => {
    const got: BusMessage[] = [];
    const sub = await bus.subscribe(
      `${p}.bots.>`,
      { durable: `g${randomBytes(3).toString("hex")}` },
      async (m) => void got.push(m),
    );
    const id = randomUUID();
    await bus.publish(`${p}.bots.created`, new TextEncoder().encode("one"), {
      msgId: id,
      headers: { "svc-event-type": "t" },
    });
    await bus.publish(`${p}.bots.created`, new TextEncoder().encode("one again"), { msgId: id });
    await bus.publish(`${p}.bots.deleted`, new TextEncoder().encode("two"), {
      msgId: randomUUID(),
    });
    await until(() => got.length >= 2);
    await new Promise((r) => setTimeout(r, 200));
    expect(got.map((m) => new TextDecoder().decode(m.data))).toEqual(["one", "two"]);
    expect(got[0]!.id).toBe(id);
    expect(got[0]!.headers["svc-event-type"]).toBe("t");
    await sub.stop();
  });

  it("redelivers while the handler throws", async () => {
    let attempts = 0;
    const sub = await bus.subscribe(
      `${p}.retry.>`,
      { durable: `r${randomBytes(3).toString("hex")}` },
      async () => {
        attempts++;
        if (attempts < 3) throw new Error("not yet");
      },
    );
    await bus.publish(`${p}.retry.x`, new Uint8Array([1]), { msgId: randomUUID() });
    await until(() => attempts >= 3);
    await new Promise((r) => setTimeout(r, 300));
    expect(attempts).toBe(3);
    await sub.stop();
  });

  it("broadcasts to listeners by subject pattern", async () => {
    const heard: string[] = [];
    const l = bus.listen(`${p}.ks.*`, (m) => heard.push(m.subject));
    await new Promise((r) => setTimeout(r, 50));
    await bus.broadcast(`${p}.ks.platform`, new Uint8Array());
    await bus.broadcast(`${p}.other.platform`, new Uint8Array());
    await until(() => heard.length >= 1);
    await new Promise((r) => setTimeout(r, 50));
    expect(heard).toEqual([`${p}.ks.platform`]);
    await l.stop();
  });
});
