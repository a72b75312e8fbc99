import type { ControlChangeRow } from "../store/compliance.repository.js";
import { compare } from "./build-report.js";

export interface DueReport {
  year: number;
  scope: "bot" | "platform";
  bot: string;
  botId: string;
  controlChanges: string[];
  kinds: string[];
  dueSince: Date;
}

/**
 * The reports due again: the uncovered control changes (oldest first) grouped by the year they
 * were made in and the report that must cover them, a bot's for its own changes, the platform's
 * for a fleet's limits and the kill-switch settings. Oldest year first, the platform before bots,
 * bots by slug.
 */
export function dueReports(uncovered: ControlChangeRow[]): DueReport[] {
  const due = new Map<string, DueReport>();
  for (const c of uncovered) {
    const at = new Date(c.changed_at);
    const year = at.getUTCFullYear();
    const key = `${year}/${c.bot_id ?? ""}`;
    const d = due.get(key) ?? {
      year,
      scope: c.bot_id ? ("bot" as const) : ("platform" as const),
      bot: "",
      botId: c.bot_id ?? "",
      controlChanges: [],
      kinds: [],
      dueSince: at,
    };
    d.controlChanges.push(c.id);
    if (!d.kinds.includes(c.kind)) d.kinds.push(c.kind);
    // The slug the bot has as of its latest change.
    d.bot = c.bot_slug ?? "";
    due.set(key, d);
  }
  return [...due.values()].sort(
    (a, b) =>
      a.year - b.year ||
      (a.scope === b.scope ? 0 : a.scope === "platform" ? -1 : 1) ||
      compare(a.bot, b.bot) ||
      compare(a.botId, b.botId),
  );
}
