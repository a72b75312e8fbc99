import { Code, ConnectError } from "@connectrpc/connect";
import { describe, expect, it } from "vitest";
import { errorDetailOf } from "../errors/index.js";
import type { Principal } from "./principal.js";
import { MFA_ACR } from "./settings.js";
import { assertSteppedUp } from "./step-up.js";

const NOW = 1_000_000;
const WINDOW = { stepUpMaxAgeSeconds: 180, clockToleranceSeconds: 5 };
const person = (over: Partial<Principal>): Principal => ({
  sub: "u",
  actorType: "user",
  delegated: false,
  roles: [],
  scopes: [],
  amr: [],
  ...over,
});

function refusal(p: Principal): ConnectError {
  try {
    assertSteppedUp(p, WINDOW, NOW);
  } catch (err) {
    return err as ConnectError;
  }
  throw new Error("step-up was expected to be refused");
}

describe("assertSteppedUp", () => {
  it("accepts amr mfa or otp, or the PAPE multi-factor acr, within 180 seconds", () => {
    for (const p of [
      person({ amr: ["mfa"] }),
      person({ amr: ["pwd", "otp"] }),
      person({ acr: MFA_ACR }),
    ]) {
      expect(() => assertSteppedUp({ ...p, authTime: NOW - 180 }, WINDOW, NOW)).not.toThrow();
    }
  });

  it("does not count a single key factor (hwk, swk) or a password as MFA", () => {
    for (const amr of [["hwk"], ["swk"], ["pwd"], []]) {
      const err = refusal(person({ amr, authTime: NOW }));
      expect(err.code).toBe(Code.Unauthenticated);
      expect(errorDetailOf(err)).toEqual({
        code: "insufficient_user_authentication",
        details: { acr_values: MFA_ACR, max_age: 0 },
      });
      expect(err.message).toMatch(/multi-factor/);
    }
  });

  it("refuses an authentication older than the window, or of unknown age", () => {
    expect(refusal(person({ amr: ["mfa"], authTime: NOW - 181 })).message).toMatch(
      /yours is 181 seconds old/,
    );
    expect(refusal(person({ amr: ["mfa"] })).message).toMatch(/auth_time/);
  });

  it("refuses an auth_time further in the future than the clock tolerance, as it would a stale one", () => {
    const err = refusal(person({ amr: ["mfa"], authTime: NOW + 6 }));
    expect(err.code).toBe(Code.Unauthenticated);
    expect(errorDetailOf(err).code).toBe("insufficient_user_authentication");
    expect(err.message).toMatch(
      /auth_time is 6 seconds in the future, beyond the 5 seconds of clock tolerance/,
    );
    expect(err.metadata.get("www-authenticate")).toMatch(
      /^Bearer error="insufficient_user_authentication".*max_age=0$/,
    );
    expect(refusal(person({ amr: ["mfa"], authTime: NOW + 86_400 })).code).toBe(
      Code.Unauthenticated,
    );
    expect(() =>
      assertSteppedUp(person({ amr: ["mfa"], authTime: NOW + 5 }), WINDOW, NOW),
    ).not.toThrow();
    expect(() =>
      assertSteppedUp(
        person({ amr: ["mfa"], authTime: NOW + 1 }),
        { ...WINDOW, clockToleranceSeconds: 0 },
        NOW,
      ),
    ).toThrow(/in the future/);
  });

  it("challenges with the spec's acr_values and max_age=0", () => {
    expect(refusal(person({ amr: ["mfa"], authTime: 0 })).metadata.get("www-authenticate")).toMatch(
      new RegExp(
        `^Bearer error="insufficient_user_authentication", error_description="[^"]+", acr_values="${MFA_ACR}", max_age=0$`,
      ),
    );
  });
});
