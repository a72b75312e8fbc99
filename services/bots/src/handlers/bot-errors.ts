import { Code, svcError } from "@svc/lib/errors";

/** The one 404 for a bot_ref that names no bot, whichever route met it. */
export function botNotFound(ref: string) {
  return svcError(Code.NotFound, "bot_not_found", `no bot with id or slug "${ref}"`, {
    bot_ref: ref,
  });
}
