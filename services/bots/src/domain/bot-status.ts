/** The bot status values of the spec. */
export type BotStatusName = "draft" | "active" | "archived";

/**
 * Allowed status changes. draft -> active puts a bot in service; archiving retires it from
 * either state; an archived bot is restored to draft (never straight to active) so its spec can
 * be reviewed again before it runs. A change to the same status is a no-op, not an error.
 */
const TRANSITIONS: Record<BotStatusName, readonly BotStatusName[]> = {
  draft: ["active", "archived"],
  active: ["archived"],
  archived: ["draft"],
};

/** Null when allowed, otherwise a message saying what is allowed instead. */
export function statusTransitionProblem(from: BotStatusName, to: BotStatusName): string | null {
  if (from === to || TRANSITIONS[from].includes(to)) return null;
  const allowed = TRANSITIONS[from];
  return `${from === "active" || from === "archived" ? "an" : "a"} ${from} bot cannot become ${to}; from ${from} it can become ${allowed.join(" or ")}`;
}

/** Spec changes are refused on archived bots: restore to draft first, so history stays meaningful. */
export function specEditable(status: BotStatusName): boolean {
  return status !== "archived";
}

/** A bot may be deleted unless it is active (it could be running: archive it first). */
export function deletable(status: BotStatusName): boolean {
  return status !== "active";
}
