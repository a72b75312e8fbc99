import { createHash, randomBytes } from "node:crypto";

/** How a script signs a person in through the provider's browser flow, over HTTP. */
export interface SignInOptions {
  issuer: string;
  clientId: string;
  redirectUri: string;
  username: string;
  password: string;
  /** Gives the current authenticator code; used when the provider asks for the second factor. */
  totp?: () => Promise<string>;
  /** Sent as acr_values (the MFA acr asks for the second factor). */
  acrValues?: string;
  /** Sent as max_age (0 forces a fresh sign-in: step-up). */
  maxAge?: number;
  /** The API audience the access token is for. */
  resource: string;
  /** Sent as scope; "openid email" unless given. */
  scope?: string;
  timeoutMs?: number;
}

export interface SignInResult {
  accessToken: string;
  idToken?: string;
  expiresIn: number;
}

/** A refusal by the provider: the page or body it answered, and where. */
export class SignInError extends Error {
  constructor(
    message: string,
    readonly status: number,
    readonly body: string,
  ) {
    super(message);
  }
}

/**
 * Authorization code with PKCE, as a browser would do it: the authorization request, the password
 * form, the TOTP form when asked, the redirect back with the code, and the token request. Keeps
 * the provider's cookies between steps; follows only redirects to the provider itself.
 *
 * @example const { accessToken } = await signIn({ issuer, clientId: "svc-console", redirectUri, username: "alice", password, resource });
 */
export async function signIn(o: SignInOptions): Promise<SignInResult> {
  const deadline = AbortSignal.timeout(o.timeoutMs ?? 10_000);
  const verifier = randomBytes(32).toString("base64url");
  const state = randomBytes(16).toString("base64url");
  const authorize = new URL(`${o.issuer}/auth`);
  const query: Record<string, string> = {
    client_id: o.clientId,
    response_type: "code",
    scope: o.scope ?? "openid email",
    redirect_uri: o.redirectUri,
    state,
    code_challenge: createHash("sha256").update(verifier).digest("base64url"),
    code_challenge_method: "S256",
    resource: o.resource,
    ...(o.acrValues ? { acr_values: o.acrValues } : {}),
    ...(o.maxAge !== undefined ? { max_age: String(o.maxAge) } : {}),
  };
  for (const [k, v] of Object.entries(query)) authorize.searchParams.set(k, v);

  const { code, state: returned } = await followProviderLogin(authorize.toString(), o);
  if (returned !== state)
    throw new SignInError("the provider returned another state", 400, returned);

  const token = await fetch(`${o.issuer}/token`, {
    method: "POST",
    signal: deadline,
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({
      grant_type: "authorization_code",
      code,
      redirect_uri: o.redirectUri,
      client_id: o.clientId,
      code_verifier: verifier,
      resource: o.resource,
    }).toString(),
  });
  const body = (await token.json()) as Record<string, unknown>;
  if (!token.ok || typeof body.access_token !== "string")
    throw new SignInError(
      `the token endpoint answered ${token.status}`,
      token.status,
      JSON.stringify(body),
    );
  return {
    accessToken: body.access_token,
    ...(typeof body.id_token === "string" ? { idToken: body.id_token } : {}),
    expiresIn: Number(body.expires_in),
  };
}

/** A client-credentials token for `audience`. */
export async function machineToken(
  issuer: string,
  client: { clientId: string; clientSecret: string },
  audience: string,
): Promise<string> {
  const res = await fetch(`${issuer}/token`, {
    method: "POST",
    signal: AbortSignal.timeout(10_000),
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({
      grant_type: "client_credentials",
      client_id: client.clientId,
      client_secret: client.clientSecret,
      resource: audience,
    }).toString(),
  });
  const body = (await res.json()) as Record<string, unknown>;
  if (!res.ok || typeof body.access_token !== "string")
    throw new SignInError(
      `the token endpoint answered ${res.status}`,
      res.status,
      JSON.stringify(body),
    );
  return body.access_token;
}

/** What the person types at the provider's pages. */
export interface Credentials {
  username: string;
  password: string;
  /** Gives the current authenticator code; used when the provider asks for the second factor. */
  totp?: () => Promise<string>;
  /** Where the provider sends the browser back with the code. */
  redirectUri: string;
  timeoutMs?: number;
}

/**
 * From an authorization URL to the code, as a browser would go: the password form, the TOTP form
 * when asked, consent, and the redirect back (read, not followed). Keeps the provider's cookies
 * between steps; follows only redirects to the provider itself.
 */
export async function followProviderLogin(
  authorizeUrl: string,
  o: Credentials,
): Promise<{ code: string; state: string }> {
  const issuer = new URL(authorizeUrl).origin;
  const jar = new Map<string, string>();
  const deadline = AbortSignal.timeout(o.timeoutMs ?? 10_000);
  const request = async (url: string, form?: Record<string, string>) => {
    const res = await fetch(url, {
      method: form ? "POST" : "GET",
      redirect: "manual",
      signal: deadline,
      headers: {
        cookie: [...jar].map(([k, v]) => `${k}=${v}`).join("; "),
        ...(form ? { "content-type": "application/x-www-form-urlencoded" } : {}),
      },
      ...(form ? { body: new URLSearchParams(form).toString() } : {}),
    });
    for (const line of res.headers.getSetCookie()) {
      const [pair = "", ...attrs] = line.split(";");
      const eq = pair.indexOf("=");
      const name = pair.slice(0, eq).trim();
      const expired = attrs.some((a) => /^\s*expires=Thu, 01 Jan 1970/i.test(a));
      if (expired || pair.slice(eq + 1) === "") jar.delete(name);
      else jar.set(name, pair.slice(eq + 1));
    }
    return res;
  };

  let res = await request(authorizeUrl);
  let code: string | undefined;
  let returnedState = "";
  for (let step = 0; step < 12 && !code; step++) {
    if (res.status >= 300 && res.status < 400) {
      const location = new URL(res.headers.get("location") ?? "", issuer);
      if (location.href.startsWith(o.redirectUri)) {
        const error = location.searchParams.get("error");
        if (error)
          throw new SignInError(
            `${error}: ${location.searchParams.get("error_description")}`,
            400,
            location.href,
          );
        returnedState = location.searchParams.get("state") ?? "";
        code = location.searchParams.get("code") ?? undefined;
        break;
      }
      res = await request(location.href);
      continue;
    }
    const page = await res.text();
    const action = /action="([^"]+)"/.exec(page)?.[1];
    if (res.status !== 200 || !action)
      throw new SignInError(`the provider answered ${res.status}`, res.status, page);
    const target = new URL(
      action.replace(/&#(\d+);/g, (_, c) => String.fromCharCode(Number(c))),
      issuer,
    );
    if (target.pathname.endsWith("/login"))
      res = await request(target.href, { username: o.username, password: o.password });
    else if (o.totp) res = await request(target.href, { otp: await o.totp() });
    else throw new SignInError("the provider asked for an authenticator code", 401, page);
  }
  if (!code) throw new SignInError("the provider never redirected back with a code", 400, "");
  return { code, state: returnedState };
}
