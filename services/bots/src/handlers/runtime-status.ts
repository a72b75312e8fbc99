import { create } from "@bufbuild/protobuf";
import type { Kysely } from "kysely";
import { BotRuntimeStatusSchema, type BotRuntimeStatus } from "@svc/gen/svc/bots/v1/bots_pb.js";
import type { KeyValueStore } from "@svc/lib/kv";
import { keysFor } from "../runner/kill-switch-watcher.js";
import { stateAsOf } from "../store/events.repository.js";
import type { BotRow, BotsDatabase } from "../store/bots.table.js";

/**
 * The bot's runtime as the spec's bot resource shows it: status.phase from its events, and
 * whether a kill switch covers it (platform, fleet or bot key) and why. A store that cannot be
 * read says so rather than claiming the bot is clear.
 */
export async function runtimeStatusOf(
  deps: { db: Kysely<BotsDatabase>; kv: KeyValueStore },
  bot: BotRow,
): Promise<BotRuntimeStatus> {
  const state = await stateAsOf(deps.db, bot.id);
  const keys = keysFor(bot.slug, bot.fleet);
  let engaged: { key: string; value: string } | undefined;
  let unknown = false;
  try {
    const values = await Promise.all(keys.map((k) => deps.kv.get(k)));
    const i = values.findIndex(Boolean);
    if (i >= 0) engaged = { key: keys[i]!, value: values[i]! };
  } catch {
    unknown = true;
  }
  return create(BotRuntimeStatusSchema, {
    phase: state.phase === "Idle" ? "" : state.phase,
    killSwitchEngaged: engaged !== undefined,
    killSwitchReason: unknown
      ? "unknown: the kill-switch store is unreachable"
      : engaged
        ? `${engaged.key}: ${reasonOf(engaged.value)}`
        : "",
  });
}

function reasonOf(value: string): string {
  try {
    const v = JSON.parse(value) as { reason?: string };
    if (v && typeof v === "object" && typeof v.reason === "string") return v.reason;
  } catch {
    // set by hand
  }
  return value;
}
