import { Code, type HandlerContext } from "@connectrpc/connect";
import { create } from "@bufbuild/protobuf";
import {
  LoginResponseSchema,
  type LoginCallbackRequest,
  type LoginRequest,
  type LoginResponse,
} from "@svc/gen/svc/identity/v1/identity_pb.js";
import { svcError } from "@svc/lib/errors";
import type { createBrowserLogin, LoginRefusal, LoginStep } from "../login/browser-login.js";

/** The browser sign-in routes: GET /auth/login and GET /auth/callback. */
export function createLoginHandlers(login: ReturnType<typeof createBrowserLogin>) {
  const answer = (step: LoginStep, ctx: HandlerContext): LoginResponse => {
    if (!step.ok) throw refusalError(step.refusal);
    ctx.responseHeader.set("set-cookie", step.cookie);
    ctx.responseHeader.set("cache-control", "no-store");
    return create(LoginResponseSchema, { location: step.location });
  };
  return {
    async login(req: LoginRequest, ctx: HandlerContext): Promise<LoginResponse> {
      const step = await login.start(
        { acrValues: req.acrValues, returnTo: req.returnTo, maxAge: req.maxAge },
        ctx.requestHeader.get("x-forwarded-host"),
      );
      return answer(step, ctx);
    },
    async loginCallback(req: LoginCallbackRequest, ctx: HandlerContext): Promise<LoginResponse> {
      const step = await login.finish(
        {
          code: req.code,
          state: req.state,
          error: req.error,
          errorDescription: req.errorDescription,
          iss: req.iss,
        },
        ctx.requestHeader.get("cookie"),
      );
      return answer(step, ctx);
    },
  };
}

function refusalError(r: LoginRefusal) {
  switch (r.kind) {
    case "unavailable":
      return svcError(Code.FailedPrecondition, "login_unavailable", r.message);
    case "bad_input":
      return svcError(Code.InvalidArgument, "invalid_parameter", r.message, { field: r.field });
    case "state_invalid":
      return svcError(Code.InvalidArgument, "login_state_invalid", r.message);
    case "code_refused":
      return svcError(Code.InvalidArgument, "login_code_refused", r.message);
    case "provider_unreachable":
      return svcError(
        Code.Unavailable,
        "idp_unreachable",
        r.message,
        {},
        {
          headers: { "retry-after": "5" },
        },
      );
  }
}
