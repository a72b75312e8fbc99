import { describe, expect, it } from "vitest";
import { newWebhookSecret, signWebhook } from "./standard-webhooks.js";

describe("Standard Webhooks signing", () => {
  it("reproduces the specification's test vector", () => {
    expect(
      signWebhook(
        "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw",
        "msg_p5jXN8AQM9LWM0D4loKWxJek",
        1614265330,
        '{"test": 2432232314}',
      ),
    ).toBe("v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=");
  });

  it("makes secrets of 32 random bytes behind whsec_", () => {
    const s = newWebhookSecret();
    expect(s).toMatch(/^whsec_[A-Za-z0-9+/]+=*$/);
    expect(Buffer.from(s.slice(6), "base64")).toHaveLength(32);
    expect(newWebhookSecret()).not.toBe(s);
  });
});
