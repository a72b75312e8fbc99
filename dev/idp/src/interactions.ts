import { createHash, timingSafeEqual } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import type Provider from "oidc-provider";
import { MFA_ACR } from "../../../deploy/idp/post-login.js";
import { passwordPage, totpPage } from "./login-pages.js";
import type { PostLoginOutcome } from "./post-login-bridge.js";
import type { SecondFactor } from "./second-factor.js";
import type { DevUser } from "./users.js";

/** What the login pages need from the provider around them. */
export interface InteractionDeps {
  provider: Provider;
  users: readonly DevUser[];
  secondFactor: SecondFactor;
  /** Runs the post-login action for a person who passed the first factor (and maybe the second). */
  postLogin(user: DevUser, methods: string[], acrValues: string[]): Promise<PostLoginOutcome>;
  /** Where the claims the action set wait for the access token (read by extraTokenClaims). */
  rememberClaims(sub: string, claims: Record<string, unknown>): void;
}

const FORM_LIMIT_BYTES = 8 * 1024;
const PENDING_MS = 5 * 60 * 1000;

/** The first factor passed, the action asked for a second: waiting for the code. */
interface PendingSecondFactor {
  user: DevUser;
  outcome: PostLoginOutcome;
  until: number;
}

/**
 * The provider's interaction routes: the password form, the TOTP form when the post-login action
 * requires MFA, and consent given at once for the platform's own clients. Anything else is not
 * ours (returns false) and goes to the provider.
 */
export function interactionRoutes(deps: InteractionDeps) {
  const pending = new Map<string, PendingSecondFactor>();

  const finishLogin = async (
    req: IncomingMessage,
    res: ServerResponse,
    user: DevUser,
    mfaDone: boolean,
    outcome: PostLoginOutcome,
  ) => {
    deps.rememberClaims(user.sub, outcome.accessTokenClaims);
    // amr names the methods used (RFC 8176); the PAPE multi-factor acr only once a second factor was.
    await deps.provider.interactionFinished(
      req,
      res,
      {
        login: {
          accountId: user.sub,
          amr: mfaDone ? ["pwd", "otp", "mfa"] : ["pwd"],
          ...(mfaDone ? { acr: MFA_ACR } : {}),
          remember: false,
        },
      },
      { mergeWithLastSubmission: false },
    );
  };

  const html = (res: ServerResponse, status: number, body: string) => {
    res.writeHead(status, {
      "content-type": "text/html; charset=utf-8",
      "cache-control": "no-store",
    });
    res.end(body);
  };

  return async (req: IncomingMessage, res: ServerResponse): Promise<boolean> => {
    const match = /^\/interaction\/([\w-]{1,64})(\/login|\/otp)?$/.exec(
      new URL(req.url ?? "/", "http://idp").pathname,
    );
    if (!match) return false;
    const [, uid = "", step] = match;
    const interaction = await deps.provider.interactionDetails(req, res);
    if (interaction.uid !== uid) return (void html(res, 400, "interaction mismatch"), true);

    if (req.method === "GET" && !step) {
      if (interaction.prompt.name === "consent")
        await grantConsent(deps.provider, interaction, req, res, deps.users);
      else html(res, 200, passwordPage(uid));
      return true;
    }
    if (req.method !== "POST") return (void html(res, 405, "method not allowed"), true);
    const form = await readForm(req);
    if (!form) return (void html(res, 413, "form too large"), true);
    const acrValues = String(interaction.params.acr_values ?? "")
      .split(" ")
      .filter(Boolean);

    if (step === "/login") {
      const user = deps.users.find((u) => u.username === form.get("username"));
      if (!user || !samePassword(user.password, form.get("password") ?? ""))
        return (
          void html(
            res,
            401,
            passwordPage(uid, "Wrong username or password.", form.get("username") ?? ""),
          ),
          true
        );
      const code = form.get("otp") ?? "";
      const mfaDone =
        code !== "" && (await deps.secondFactor.accept(user.sub, user.totpSecret, code));
      if (code !== "" && !mfaDone)
        return (void html(res, 401, totpPage(uid, "That code is not valid.")), true);
      const outcome = await deps.postLogin(user, mfaDone ? ["pwd", "mfa"] : ["pwd"], acrValues);
      if (outcome.mfaRequired && !mfaDone) {
        pending.set(uid, { user, outcome, until: Date.now() + PENDING_MS });
        return (void html(res, 200, totpPage(uid)), true);
      }
      await finishLogin(req, res, user, mfaDone, outcome);
      return true;
    }

    const waiting = pending.get(uid);
    if (!waiting || waiting.until < Date.now()) {
      pending.delete(uid);
      return (
        void html(res, 400, passwordPage(uid, "Sign in again: the first step has expired.")),
        true
      );
    }
    if (
      !(await deps.secondFactor.accept(
        waiting.user.sub,
        waiting.user.totpSecret,
        form.get("otp") ?? "",
      ))
    )
      return (void html(res, 401, totpPage(uid, "That code is not valid.")), true);
    pending.delete(uid);
    await finishLogin(req, res, waiting.user, true, waiting.outcome);
    return true;
  };
}

/**
 * The platform's own clients need no consent screen: grant what the request asked for, but of the
 * API's scopes only those the person's RBAC gives them. The platform reads a token's scope string
 * as granted: a client asking for admin:platform at sign-in must not get it by asking.
 */
async function grantConsent(
  provider: Provider,
  interaction: Awaited<ReturnType<Provider["interactionDetails"]>>,
  req: IncomingMessage,
  res: ServerResponse,
  users: readonly DevUser[],
) {
  const { prompt, params, session, grantId } = interaction;
  const grant = grantId
    ? (await provider.Grant.find(grantId))!
    : new provider.Grant({ accountId: session!.accountId, clientId: String(params.client_id) });
  const details = prompt.details as {
    missingOIDCScope?: string[];
    missingOIDCClaims?: string[];
    missingResourceScopes?: Record<string, string[]>;
  };
  if (details.missingOIDCScope) grant.addOIDCScope(details.missingOIDCScope.join(" "));
  if (details.missingOIDCClaims) grant.addOIDCClaims(details.missingOIDCClaims);
  const holds = new Set(users.find((u) => u.sub === session?.accountId)?.permissions ?? []);
  for (const [indicator, scopes] of Object.entries(details.missingResourceScopes ?? {})) {
    const held = scopes.filter((s) => holds.has(s));
    const refused = scopes.filter((s) => !holds.has(s));
    if (held.length > 0) grant.addResourceScope(indicator, held.join(" "));
    // Rejected, not left out: the provider would otherwise ask for consent again, forever.
    if (refused.length > 0) grant.rejectResourceScope(indicator, refused.join(" "));
  }
  await provider.interactionFinished(
    req,
    res,
    { consent: { grantId: await grant.save() } },
    {
      mergeWithLastSubmission: true,
    },
  );
}

function samePassword(expected: string, given: string): boolean {
  const digest = (s: string) => createHash("sha256").update(s).digest();
  return timingSafeEqual(digest(expected), digest(given));
}

async function readForm(req: IncomingMessage): Promise<URLSearchParams | undefined> {
  let size = 0;
  const chunks: Buffer[] = [];
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > FORM_LIMIT_BYTES) return undefined;
    chunks.push(chunk);
  }
  return new URLSearchParams(Buffer.concat(chunks).toString("utf8"));
}
