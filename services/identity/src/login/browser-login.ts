import { createHash, randomBytes } from "node:crypto";
import { bindingDigest, LoginStateSealer } from "./login-state.js";
import { providerEndpoints } from "@svc/lib/auth";
import { safeReturnTo } from "./return-to.js";

/** Why a sign-in cannot go on; the handler turns each into the HTTP answer a person can act on. */
export type LoginRefusal =
  | { kind: "unavailable"; message: string }
  | { kind: "bad_input"; field: string; message: string }
  | { kind: "state_invalid"; message: string }
  | { kind: "provider_unreachable"; message: string }
  | { kind: "code_refused"; message: string };

export type LoginStep =
  { ok: true; location: string; cookie: string } | { ok: false; refusal: LoginRefusal };

export interface BrowserLoginSettings {
  provider: "local" | "oidc";
  issuer?: string;
  audience?: string;
  clientId: string;
  clientSecret?: string;
  stateKey?: string;
  publicUrl?: string;
  timeoutMs: number;
}

/** The browser-binding cookie: set with the redirect, read back at the callback. */
export const LOGIN_COOKIE = "svc_login";
const STATE_TTL_MS = 10 * 60 * 1000;
const NO_PROVIDER: LoginRefusal = {
  kind: "unavailable",
  message:
    "sign-in needs an OIDC provider: set SVC_AUTH_PROVIDER=oidc and SVC_AUTH_OIDC_ISSUER (local auth has no sign-in)",
};
const LOOPBACK_HOST = /^(127\.0\.0\.1|localhost|\[::1\])(:\d{1,5})?$/;

/**
 * The platform's browser sign-in (authorization code with PKCE, RFC 7636), the fallback for
 * step-up: `start` sends the browser to the provider with acr_values and max_age, sealing the
 * verifier, the route to return to and a digest of a cookie bound to this browser in `state`;
 * `finish` checks all three, redeems the code and returns to the route with the access token in
 * the URL fragment, which browsers never send to a server.
 */
export function createBrowserLogin(settings: BrowserLoginSettings, now: () => number = Date.now) {
  const sealer = new LoginStateSealer(settings.stateKey);
  const endpoints =
    settings.provider === "oidc" && settings.issuer
      ? providerEndpoints(settings.issuer, settings.timeoutMs)
      : undefined;
  const refuse = (refusal: LoginRefusal): LoginStep => ({ ok: false, refusal });

  const origin = (forwardedHost: string | null): string | undefined => {
    if (settings.publicUrl) return settings.publicUrl.replace(/\/+$/, "");
    // Without SVC_PUBLIC_URL only a loopback Host is believed: a forged Host could otherwise
    // send the code elsewhere (the provider's redirect list is the second guard).
    return forwardedHost && LOOPBACK_HOST.test(forwardedHost)
      ? `http://${forwardedHost}`
      : undefined;
  };

  const cookieFor = (value: string, maxAgeSeconds: number, secure: boolean) =>
    `${LOGIN_COOKIE}=${value}; Path=/auth/callback; Max-Age=${maxAgeSeconds}; HttpOnly; SameSite=Lax${secure ? "; Secure" : ""}`;

  return {
    async start(
      input: { acrValues: string; returnTo: string; maxAge: number },
      forwardedHost: string | null,
    ): Promise<LoginStep> {
      if (!endpoints) return refuse(NO_PROVIDER);
      const returnTo = safeReturnTo(input.returnTo);
      if (returnTo === undefined)
        return refuse({
          kind: "bad_input",
          field: "return_to",
          message: "return_to must be a path of this platform, starting with a single /",
        });
      const base = origin(forwardedHost);
      if (!base)
        return refuse({
          kind: "unavailable",
          message: "set SVC_PUBLIC_URL to the platform's address so the provider can return to it",
        });
      let authorizationEndpoint: string;
      try {
        ({ authorizationEndpoint } = await endpoints());
      } catch (err) {
        return refuse({
          kind: "provider_unreachable",
          message: `the identity provider's discovery document could not be read: ${(err as Error).message}`,
        });
      }
      const verifier = randomBytes(32).toString("base64url");
      const browser = randomBytes(24).toString("base64url");
      const redirectUri = `${base}/auth/callback`;
      const state = sealer.seal({
        verifier,
        returnTo,
        redirectUri,
        binding: bindingDigest(browser),
        expiresAt: now() + STATE_TTL_MS,
      });
      const url = new URL(authorizationEndpoint);
      const params: Record<string, string> = {
        client_id: settings.clientId,
        response_type: "code",
        scope: "openid",
        redirect_uri: redirectUri,
        state,
        code_challenge: createHash("sha256").update(verifier).digest("base64url"),
        code_challenge_method: "S256",
        max_age: String(input.maxAge),
        ...(settings.audience ? { resource: settings.audience, audience: settings.audience } : {}),
        ...(input.acrValues ? { acr_values: input.acrValues } : {}),
      };
      for (const [k, v] of Object.entries(params)) url.searchParams.set(k, v);
      return {
        ok: true,
        location: url.toString(),
        cookie: cookieFor(browser, STATE_TTL_MS / 1000, base.startsWith("https:")),
      };
    },

    async finish(
      input: { code: string; state: string; error: string; errorDescription: string; iss?: string },
      cookieHeader: string | null,
    ): Promise<LoginStep> {
      if (!endpoints) return refuse(NO_PROVIDER);
      const state = input.state ? sealer.open(input.state, now()) : undefined;
      const browser = cookieValue(cookieHeader, LOGIN_COOKIE);
      if (!state)
        return refuse({
          kind: "state_invalid",
          message: "this sign-in link is not valid or has expired: start again at /auth/login",
        });
      if (!browser || bindingDigest(browser) !== state.binding)
        return refuse({
          kind: "state_invalid",
          message: "this sign-in was started in another browser: start again at /auth/login",
        });
      const clear = cookieFor("", 0, state.redirectUri.startsWith("https:"));
      // RFC 9207: a provider names itself in its answer (oidc-provider, Keycloak do); an answer
      // naming another issuer is a mix-up and is refused before the code goes anywhere.
      if (input.iss && settings.issuer && !sameIssuer(input.iss, settings.issuer))
        return refuse({
          kind: "bad_input",
          field: "iss",
          message: `the sign-in answer comes from ${input.iss}, not from the platform's identity provider ${settings.issuer}: start again at /auth/login`,
        });
      if (input.error) {
        const fragment = new URLSearchParams({
          error: input.error,
          ...(input.errorDescription ? { error_description: input.errorDescription } : {}),
        });
        return { ok: true, location: `${state.returnTo}#${fragment}`, cookie: clear };
      }
      if (!input.code)
        return refuse({ kind: "bad_input", field: "code", message: "the provider sent no code" });
      let tokenEndpoint: string;
      try {
        ({ tokenEndpoint } = await endpoints());
      } catch (err) {
        return refuse({ kind: "provider_unreachable", message: (err as Error).message });
      }
      let res: Response;
      try {
        res = await fetch(tokenEndpoint, {
          method: "POST",
          signal: AbortSignal.timeout(settings.timeoutMs),
          headers: { "content-type": "application/x-www-form-urlencoded" },
          body: new URLSearchParams({
            grant_type: "authorization_code",
            code: input.code,
            redirect_uri: state.redirectUri,
            client_id: settings.clientId,
            code_verifier: state.verifier,
            ...(settings.clientSecret ? { client_secret: settings.clientSecret } : {}),
            ...(settings.audience ? { resource: settings.audience } : {}),
          }).toString(),
        });
      } catch (err) {
        return refuse({
          kind: "provider_unreachable",
          message: `the identity provider's token endpoint did not answer: ${(err as Error).message}`,
        });
      }
      const body = (await res.json().catch(() => ({}))) as Record<string, unknown>;
      if (!res.ok || typeof body.access_token !== "string")
        return refuse({
          kind: "code_refused",
          message: `the identity provider refused the code (${String(body.error ?? res.status)}): start again at /auth/login`,
        });
      const fragment = new URLSearchParams({
        access_token: body.access_token,
        token_type: "Bearer",
        ...(body.expires_in !== undefined ? { expires_in: String(body.expires_in) } : {}),
      });
      return { ok: true, location: `${state.returnTo}#${fragment}`, cookie: clear };
    },
  };
}

const sameIssuer = (a: string, b: string) => a.replace(/\/+$/, "") === b.replace(/\/+$/, "");

function cookieValue(header: string | null, name: string): string | undefined {
  for (const part of (header ?? "").split(";")) {
    const [k, ...v] = part.trim().split("=");
    if (k === name) return v.join("=") || undefined;
  }
  return undefined;
}
