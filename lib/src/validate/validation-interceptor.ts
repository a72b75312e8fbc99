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
    return next(req);
  };
}
