import { randomBytes, randomUUID } from "node:crypto";
import { connect } from "nats";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { eventually } from "../../../test/support/until.js";
import { createMemoryBus, createNatsBus, type BusMessage, type EventBus } from "./index.js";
import { deleteTestStream } from "./testing-streams.js";

const natsUrl = process.env.SVC_TEST_NATS_URL ?? "nats://127.0.0.1:4222";

const tag = randomBytes(4).toString("hex");

/** Messages of a durable group that the server has delivered or still holds without an ack. */
async function unackedOnServer(durable: string): Promise<number> {
  const nc = await connect({ servers: natsUrl });
  try {
    const info = await (await nc.jetstreamManager()).consumers.info(`SVC_TEST_${tag}`, durable);
    return info.num_ack_pending + info.num_pending;
  } finally {
    await nc.close();
  }
}

describe.each([
  [
    "in-process",
    "svc",
    () => Promise.resolve(createMemoryBus({ redeliveryDelayMs: 10 })),
    // It delivers again only from inside the attempt loop, which a success ends.
    async () => 0,
  ],
  // Each run gets its own stream over its own subject space, so parallel runs never meet.
  [
    "NATS JetStream",
    `t${tag}`,
    () => createNatsBus({ url: natsUrl, stream: `SVC_TEST_${tag}`, subjects: [`t${tag}.>`] }),
    unackedOnServer,
  ],
] as const)("event bus: %s", (_name, p, open, unacked) => {
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
    // A group gets its messages in publish order: had the re-publish been kept, it would come
    // before "two".
    const texts = () => got.map((m) => new TextDecoder().decode(m.data));
    await eventually("the group gets the second message", texts, (t) => t.includes("two"));
    expect(texts()).toEqual(["one", "two"]);
    expect(got[0]!.id).toBe(id);
    expect(got[0]!.headers["svc-event-type"]).toBe("t");
    await sub.stop();
  });

  it("redelivers while the handler throws, and not once it succeeds", async () => {
    let attempts = 0;
    const durable = `r${randomBytes(3).toString("hex")}`;
    const sub = await bus.subscribe(`${p}.retry.>`, { durable }, async () => {
      attempts++;
      if (attempts < 3) throw new Error("not yet");
    });
    await bus.publish(`${p}.retry.x`, new Uint8Array([1]), { msgId: randomUUID() });
    await eventually(
      "the third attempt",
      () => attempts,
      (n) => n >= 3,
    );
    // Acknowledged, nothing is left to deliver again.
    await eventually(
      "the success is acknowledged",
      () => unacked(durable),
      (n) => n === 0,
    );
    expect(attempts).toBe(3);
    await sub.stop();
  });

  it("broadcasts to listeners by subject pattern", async () => {
    const heard: string[] = [];
    const l = bus.listen(`${p}.ks.*`, (m) => heard.push(m.subject));
    // A round trip to the server (NATS flush): the subscription is in place before anything is sent.
    await bus.ping();
    // One sender's messages arrive in order: had the other subject matched, it would come first.
    await bus.broadcast(`${p}.other.platform`, new Uint8Array());
    await bus.broadcast(`${p}.ks.platform`, new Uint8Array());
    await eventually(
      "the listener hears its subject",
      () => heard,
      (h) => h.length >= 1,
    );
    expect(heard).toEqual([`${p}.ks.platform`]);
    await l.stop();
  });
});
