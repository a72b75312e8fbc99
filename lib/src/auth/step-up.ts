import { Code, svcError } from "../errors/index.js";
import type { Principal } from "./principal.js";
import { MFA_ACR } from "./settings.js";

/**
 * amr values (RFC 8176) that prove a second factor, the two the spec names: "mfa" and "otp".
 * "hwk"/"swk" (proof of a hardware or software key) are deliberately not enough on their own:
 * each is one factor. A provider that counts a passkey with user verification as two factors
 * says so with "mfa" or the PAPE multi-factor acr, both accepted.
 */
const MFA_METHODS = new Set(["mfa", "otp"]);

/**
 * RFC 9470 step-up: the token must show an MFA method (amr, or the PAPE multi-factor acr) and an
 * authentication no older than `maxAgeSeconds`. The 401 tells the client what to ask the
 * provider for: the MFA acr and max_age=0 (re-authenticate now).
 *
 * @example if (policy.stepUp) assertSteppedUp(principal, settings.stepUpMaxAgeSeconds);
 */
export function assertSteppedUp(p: Principal, maxAgeSeconds: number, nowSeconds = Math.floor(Date.now() / 1000)): void {
  const mfa = p.amr.some((m) => MFA_METHODS.has(m)) || p.acr === MFA_ACR;
  const age = p.authTime === undefined ? undefined : nowSeconds - p.authTime;
  let why: string | undefined;
  if (!mfa) why = "this route needs a token obtained with multi-factor authentication";
  else if (age === undefined) why = "this route needs a token that says when you authenticated (auth_time)";
  else if (age > maxAgeSeconds) why = `this route needs an authentication no older than ${maxAgeSeconds} seconds; yours is ${age} seconds old`;
  if (!why) return;
  throw svcError(Code.Unauthenticated, "insufficient_user_authentication", why, { acr_values: MFA_ACR, max_age: 0 }, {
    headers: {
      "www-authenticate": `Bearer error="insufficient_user_authentication", error_description="${why}", acr_values="${MFA_ACR}", max_age=0`,
    },
  });
}
