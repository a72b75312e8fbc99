import { describe, expect, it } from "vitest";
import { eventQueue } from "./event-queue.js";

describe("eventQueue", () => {
  it("hands over what was pushed before and after the consumer asks, in order", async () => {
    const q = eventQueue<number>();
    q.push(1);
    const seen: number[] = [];
    const done = (async () => {
      for await (const n of q.drain()) seen.push(n);
    })();
    q.push(2);
    await Promise.resolve();
    q.push(3);
    q.end();
    q.push(4);
    await done;
    expect(seen).toEqual([1, 2, 3]);
  });

  it("throws the producer's failure after the items pushed before it", async () => {
    const q = eventQueue<string>();
    q.push("a");
    q.end(new Error("model hung"));
    const seen: string[] = [];
    await expect(
      (async () => {
        for await (const s of q.drain()) seen.push(s);
      })(),
    ).rejects.toThrow("model hung");
    expect(seen).toEqual(["a"]);
  });
});
