import { Code, svcError } from "@svc/lib/errors";
import type { EngineInputError } from "../engine/engine-error.js";

/** The one 404 for a bot_ref that names no bot, whichever route met it. */
export function botNotFound(ref: string) {
  return svcError(Code.NotFound, "bot_not_found", `no bot with id or slug "${ref}"`, {
    bot_ref: ref,
  });
}

/** The one 400 for bad engine input, naming the field (and CSV line) a person must fix. */
export function engineInputRefused(err: EngineInputError, fallbackField = "") {
  return svcError(Code.InvalidArgument, err.code, err.message, {
    field: err.field ?? fallbackField,
    ...(err.line ? { line: err.line } : {}),
  });
}
