import { create } from "@bufbuild/protobuf";
import type { Kysely } from "kysely";
import { BotRuntimeStatusSchema, type BotRuntimeStatus } from "@svc/gen/svc/bots/v1/bots_pb.js";
import type { KeyValueStore } from "@svc/lib/kv";
import { keysFor } from "../runner/kill-switch-watcher.js";
import { phasesOf, stateAsOf } from "../store/events.repository.js";
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
  let values: Map<string, string | null> | undefined;
  try {
    const read = await Promise.all(keys.map((k) => deps.kv.get(k)));
    values = new Map(keys.map((k, i) => [k, read[i]!]));
  } catch {
    values = undefined;
  }
  return statusOf(state.phase, keys, values);
}

/**
 * The runtime of a page of bots, the same answer runtimeStatusOf gives each: one query for
 * their phases and one MGET for every kill-switch key that covers any of them, however long
 * the page.
 */
export async function runtimeStatusesOf(
  deps: { db: Kysely<BotsDatabase>; kv: KeyValueStore },
  bots: readonly BotRow[],
): Promise<Map<string, BotRuntimeStatus>> {
  const keysOf = new Map(bots.map((b) => [b.id, keysFor(b.slug, b.fleet)]));
  const allKeys = [...new Set([...keysOf.values()].flat())];
  const [phases, values] = await Promise.all([
    phasesOf(deps.db, [...keysOf.keys()]),
    deps.kv.getMany(allKeys).then(
      (read) => new Map(allKeys.map((k, i) => [k, read[i] ?? null])),
      () => undefined,
    ),
  ]);
  return new Map(
    bots.map((b) => [b.id, statusOf(phases.get(b.id) ?? "Idle", keysOf.get(b.id)!, values)]),
  );
}

/** `values` undefined: the store did not answer, and the answer says so. */
function statusOf(
  phase: string,
  keys: readonly string[],
  values: Map<string, string | null> | undefined,
): BotRuntimeStatus {
  const key = values ? keys.find((k) => values.get(k)) : undefined;
  return create(BotRuntimeStatusSchema, {
    phase: phase === "Idle" ? "" : phase,
    // Unset when the store did not answer: a hung store must not read as "no switch".
    killSwitchEngaged: values ? key !== undefined : undefined,
    killSwitchReason: !values
      ? "unknown: the kill-switch store is unreachable"
      : key
        ? `${key}: ${reasonOf(values.get(key)!)}`
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
