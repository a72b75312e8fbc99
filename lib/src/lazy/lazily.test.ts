import { describe, expect, it } from "vitest";
import { lazily } from "./index.js";

describe("lazily", () => {
  it("makes the value once, at the first call, for every caller", async () => {
    let made = 0;
    const get = lazily(async () => ({ n: ++made }));
    expect(made).toBe(0);
    const [a, b] = await Promise.all([get(), get()]);
    expect(a).toBe(b);
    expect(await get()).toBe(a);
    expect(made).toBe(1);
  });

  it("does not keep a failure: the next call makes it again", async () => {
    let calls = 0;
    const get = lazily(async () => {
      calls++;
      if (calls === 1) throw new Error("the chunk could not be read");
      return "loaded";
    });
    await expect(get()).rejects.toThrow("the chunk could not be read");
    expect(await get()).toBe("loaded");
    expect(calls).toBe(2);
  });

  it("answers a maker that throws before it returns a promise with a rejection, not a throw", async () => {
    const get = lazily((): Promise<number> => {
      throw new Error("no such module");
    });
    const answer = get();
    expect(answer).toBeInstanceOf(Promise);
    await expect(answer).rejects.toThrow("no such module");
  });
});
