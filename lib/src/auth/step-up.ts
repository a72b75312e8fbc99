import { Code, svcError } from "../errors/index.js";
import type { Principal } from "./principal.js";
import { MFA_ACR, type AuthSettings } from "./settings.js";

/**
 * amr values (RFC 8176) that prove a second factor, the two the spec names: "mfa" and "otp".
 * "hwk"/"swk" (proof of a hardware or software key) are deliberately not enough on their own:
 * each is one factor. A provider that counts a passkey with user verification as two factors
 * says so with "mfa" or the PAPE multi-factor acr, both accepted.
 */
const MFA_METHODS = new Set(["mfa", "otp"]);

/**
 * RFC 9470 step-up: the token must show an MFA method (amr, or the PAPE multi-factor acr) and an
 * authentication no older than `stepUpMaxAgeSeconds`. An auth_time further in the future than the
 * clock tolerance is not fresh either: no clock skew explains it, and taken at face value it
 * would stay "fresh" for as long as it lies. The 401 tells the client what to ask the provider
 * for: the MFA acr and max_age=0 (re-authenticate now).
 *
 * @example if (policy.stepUp) assertSteppedUp(principal, settings);
 */
export function assertSteppedUp(
  p: Principal,
  limits: StepUpWindow,
  nowSeconds = Math.floor(Date.now() / 1000),
): void {
  const why = stepUpShortfall(p, limits, nowSeconds);
  if (!why) return;
  throw svcError(
    Code.Unauthenticated,
    "insufficient_user_authentication",
    why,
    { acr_values: MFA_ACR, max_age: 0 },
    {
      headers: {
        "www-authenticate": `Bearer error="insufficient_user_authentication", error_description="${why}", acr_values="${MFA_ACR}", max_age=0`,
      },
    },
  );
}

/** How old an authentication may be, and how far ahead of our clock the provider's may run. */
export type StepUpWindow = Pick<AuthSettings, "stepUpMaxAgeSeconds" | "clockToleranceSeconds">;

function stepUpShortfall(
  p: Principal,
  { stepUpMaxAgeSeconds: maxAge, clockToleranceSeconds: tolerance }: StepUpWindow,
  nowSeconds: number,
): string | undefined {
  const mfa = p.amr.some((m) => MFA_METHODS.has(m)) || p.acr === MFA_ACR;
  if (!mfa) return "this route needs a token obtained with multi-factor authentication";
  if (p.authTime === undefined)
    return "this route needs a token that says when you authenticated (auth_time)";
  const age = nowSeconds - p.authTime;
  if (age < -tolerance)
    return `this route needs a recent authentication; your auth_time is ${-age} seconds in the future, beyond the ${tolerance} seconds of clock tolerance`;
  if (age > maxAge)
    return `this route needs an authentication no older than ${maxAge} seconds; yours is ${age} seconds old`;
  return undefined;
}
