/**
 * Who the console acts as. OIDC: the access token from the browser sign-in, kept in
 * sessionStorage (gone with the tab, never in a cookie the API would accept cross-site). Local
 * auth: an optional "act as" user sent as x-svc-local-user, so four eyes can be tried alone.
 */
const TOKEN = "svc.console.token";
const ACT_AS = "svc.console.act-as";

export type AuthMode = "local" | "oidc" | "unknown";

export const session = {
  token: (): string => sessionStorage.getItem(TOKEN) ?? "",
  setToken(token: string) {
    if (token) sessionStorage.setItem(TOKEN, token);
    else sessionStorage.removeItem(TOKEN);
  },
  actAs: (): string => sessionStorage.getItem(ACT_AS) ?? "",
  setActAs(user: string) {
    if (user.trim()) sessionStorage.setItem(ACT_AS, user.trim());
    else sessionStorage.removeItem(ACT_AS);
  },
};

/**
 * The sign-in comes back to the route it started from with `#access_token=...` (or `#error=...`):
 * keep the token, take the fragment out of the address bar and the history, and say what came back.
 */
export function pickUpSignIn(): { signedIn: boolean; error?: string } {
  const hash = location.hash.startsWith("#") ? location.hash.slice(1) : "";
  if (!hash) return { signedIn: false };
  const params = new URLSearchParams(hash);
  const token = params.get("access_token");
  const error = params.get("error");
  if (!token && !error) return { signedIn: false };
  history.replaceState(history.state, "", location.pathname + location.search);
  if (token) {
    session.setToken(token);
    return { signedIn: true };
  }
  const description = params.get("error_description");
  return { signedIn: false, error: description ? `${error}: ${description}` : (error ?? "") };
}

/** The step-up challenge of an RFC 9470 401, parsed from its WWW-Authenticate header. */
export interface StepUp {
  acrValues: string;
  maxAge: string;
  description: string;
}

export function stepUpFrom(header: string | null): StepUp | undefined {
  if (!header || !/error="insufficient_user_authentication"/.test(header)) return undefined;
  const param = (name: string) =>
    new RegExp(`${name}="?([^",]*)"?`).exec(header)?.[1]?.trim() ?? "";
  return {
    acrValues: param("acr_values"),
    maxAge: param("max_age") || "0",
    description: param("error_description"),
  };
}

/** The browser sign-in, back to this very route: with the step-up's acr_values when one is asked. */
export function signInUrl(stepUp?: StepUp): string {
  const q = new URLSearchParams({ return_to: location.pathname + location.search });
  if (stepUp) {
    if (stepUp.acrValues) q.set("acr_values", stepUp.acrValues);
    q.set("max_age", stepUp.maxAge);
  }
  return `/auth/login?${q.toString()}`;
}
