import {
  Code,
  ConnectError,
  createClient,
  createRouterTransport,
  type ConnectRouter,
  type HandlerContext,
} from "@connectrpc/connect";
import type { JsonObject } from "@bufbuild/protobuf";
import { BotsService } from "@svc/gen/svc/bots/v1/bots_pb.js";
import { IdentityService, LicenseService } from "@svc/gen/svc/identity/v1/identity_pb.js";
import { errorDetailOf } from "../../errors/index.js";
import { createAuthInterceptor, type MembershipLookup } from "../auth-interceptor.js";
import { bearerRejectionKey, principalKey, type Principal } from "../principal.js";
import type { AuthSettings } from "../settings.js";
import { createTokenVerifier, type TokenVerifier } from "../token-verifier.js";

/** Clients of stub Bots, Identity and License services mounted behind the real auth interceptor. */
export interface AuthHarness {
  bots: ReturnType<typeof createClient<typeof BotsService>>;
  identity: ReturnType<typeof createClient<typeof IdentityService>>;
  license: ReturnType<typeof createClient<typeof LicenseService>>;
  verifier: TokenVerifier;
  /** The principal each handler saw, in call order (undefined on an anonymous public call). */
  seen: (Principal | undefined)[];
  /** Why a token sent to a public route was not taken, per call (undefined: none refused). */
  rejected: unknown[];
}

/**
 * Mounts stub handlers (GetBot, CreateBot, HaltBot, ChatBot, WhoAmI, OidcSync,
 * GetLicensePublicKey) on an in-memory router transport behind createAuthInterceptor, so a
 * test exercises the policies of the real proto annotations.
 *
 * @example const h = createAuthHarness(settings); await h.bots.getBot({ botRef: "b" }, withBearer(token));
 */
export function createAuthHarness(
  settings: AuthSettings,
  hasMembership?: MembershipLookup,
): AuthHarness {
  const seen: (Principal | undefined)[] = [];
  const rejected: unknown[] = [];
  const record = (ctx: HandlerContext) => {
    seen.push(ctx.values.get(principalKey));
    rejected.push(ctx.values.get(bearerRejectionKey));
  };
  const routes = (router: ConnectRouter) => {
    router.service(BotsService, {
      getBot: (_req, ctx) => (record(ctx), {}),
      createBot: (_req, ctx) => (record(ctx), {}),
      haltBot: (_req, ctx) => (record(ctx), {}),
      chatBot: async function* (_req, ctx) {
        record(ctx);
      },
    });
    router.service(IdentityService, {
      whoAmI: (_req, ctx) => (record(ctx), {}),
      oidcSync: (_req, ctx) => (record(ctx), {}),
    });
    router.service(LicenseService, { getLicensePublicKey: (_req, ctx) => (record(ctx), {}) });
  };
  const verifier = createTokenVerifier(settings);
  const transport = createRouterTransport(routes, {
    router: { interceptors: [createAuthInterceptor({ settings, verifier, hasMembership })] },
  });
  return {
    bots: createClient(BotsService, transport),
    identity: createClient(IdentityService, transport),
    license: createClient(LicenseService, transport),
    verifier,
    seen,
    rejected,
  };
}

/** Call options carrying `Authorization: Bearer <token>` (and any other headers). */
export function withBearer(
  token: string,
  headers: Record<string, string> = {},
): { headers: Record<string, string> } {
  return { headers: { authorization: `Bearer ${token}`, ...headers } };
}

/** What a refused call carried: the Connect code, the machine code, its details, the headers. */
export interface Refusal {
  code: Code;
  machineCode: string;
  message: string;
  details: JsonObject;
  header(name: string): string | null;
}

/**
 * Awaits a call that must fail and returns what it failed with; fails the test if it passed.
 *
 * @example expect((await refusal(h.bots.getBot({}))).machineCode).toBe("unauthenticated");
 */
export async function refusal(call: Promise<unknown>): Promise<Refusal> {
  try {
    await call;
  } catch (err) {
    const e = ConnectError.from(err);
    const { code, details } = errorDetailOf(e);
    return {
      code: e.code,
      machineCode: code,
      message: e.rawMessage,
      details,
      header: (name) => e.metadata.get(name),
    };
  }
  throw new Error("the call was expected to be refused, and it passed");
}
