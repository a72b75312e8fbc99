import type { Interceptor } from "@connectrpc/connect";
import type { Message } from "@bufbuild/protobuf";
import { validateMessage } from "./validate-message.js";

/**
 * Runs `validateMessage` on every unary request before the handler, so no handler ever sees input
 * that breaks the proto's rules. Install it after auth: unauthenticated callers learn nothing
 * about the shape of a request.
 */
export function createValidationInterceptor(): Interceptor {
  return (next) => async (req) => {
    if (!req.stream) validateMessage(req.method.input, req.message as Message);
    else if (req.method.methodKind === "server_streaming") {
      // A server-streaming RPC takes one request message, read by the handler through this
      // iterable: checked as it passes, so the refusal comes before the handler's first step.
      const source = req.message;
      const input = req.method.input;
      return next({
        ...req,
        message: (async function* () {
          for await (const m of source) {
            validateMessage(input, m as Message);
            yield m;
          }
        })(),
      });
    }
    return next(req);
  };
}
