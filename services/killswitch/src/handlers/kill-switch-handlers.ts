import { create } from "@bufbuild/protobuf";
import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import type { HandlerContext, ServiceImpl } from "@connectrpc/connect";
import {
  CheckEngagedResponseSchema,
  DeleteKillSwitchResponseSchema,
  KillSwitchSchema,
  KillSwitchService,
  ListKillSwitchesResponseSchema,
  type KillSwitch,
  type KillSwitchSpec,
} from "@svc/gen/svc/killswitch/v1/killswitch_pb.js";
import { auditOriginOf, type AuditOrigin } from "@svc/lib/audit";
import { principalOf, type Principal } from "@svc/lib/auth";
import { Code, ConnectError, invalidField, svcError } from "@svc/lib/errors";
import { decodePageToken, pageOf, pageSize } from "@svc/lib/paging";
import { MAX_TTL_SECONDS, readEngagers } from "../domain/key-engagers.js";
import {
  KILL_SWITCH_KEY_PREFIX,
  killSwitchKey,
  killSwitchKeysCovering,
  killSwitchMode,
  killSwitchModeName,
  killSwitchScope,
  killSwitchScopeName,
  parseKillSwitchKey,
  publishKillSwitchChanged,
  readKillSwitchValue,
  type KillSwitchModeName,
  type KillSwitchScopeName,
} from "@svc/lib/contracts";
import { ttlSeconds } from "../domain/ttl.js";
import {
  broadcastKey,
  broadcastSync,
  syncKey,
  type KeyDeps,
  type KeySync,
} from "../engagement/key-sync.js";
import * as repo from "../store/killswitch.repository.js";
import type { KillSwitchRow } from "../store/killswitch.table.js";

type Handlers = Omit<
  ServiceImpl<typeof KillSwitchService>,
  | "runDrill"
  | "getDrill"
  | "listDrills"
  | "haltAgents"
  | "haltQuantAgents"
  | "releaseAgents"
  | "releaseQuantAgents"
  | "getAgentHalts"
>;

/** Whether the key holds a switch: written, not yet written (the service keeps trying), or unknown (the store does not answer). */
type KeyState = "written" | "pending" | "unknown";

/** The name under which a key set by hand is listed, and released. */
const manualName = (scope: KillSwitchScopeName, target: string) => `kv-${scope}-${target}`;

const SWITCHES = { list: "kill_switches", filters: {}, keys: repo.SWITCH_KEYS } as const;
/** The time key of a switch set by hand: later than any recorded switch's engaged_at. */
const AFTER_RECORDED = "9999-12-31T23:59:59.999999Z";

/**
 * Kill-switch resources. A switch is a row (its audit trail beside it) and an engager in its
 * key: several switches on one scope and target share the key, which stays engaged while any of
 * them is, at the strictest mode. Engage broadcasts before it touches a store, so runners halt
 * even when the stores hang; it answers 503 when what it recorded is not durable. Release
 * writes the key before it broadcasts, so a failed release releases nothing.
 */
/** Asks the bots service whether a bot slug exists, for a bot the projection has not seen yet. */
export type BotExists = (slug: string) => Promise<boolean>;

export function createKillSwitchHandlers(deps: KeyDeps & { botExists?: BotExists }): Handlers {
  const { db, kv, bus } = deps;

  const notDurable = (message: string, details: Record<string, string>, cause: unknown) =>
    svcError(Code.Unavailable, "killswitch_not_durable", message, details, { cause });

  function toResource(row: KillSwitchRow, keyState: KeyState): KillSwitch {
    return create(KillSwitchSchema, {
      metadata: { name: row.name },
      spec: {
        scope: killSwitchScope(row.scope),
        target: row.target,
        mode: killSwitchMode(row.mode),
        reason: row.reason,
        ttl: row.ttl,
      },
      status: {
        engaged: true,
        keyState,
        engagedBy: row.engaged_by,
        engagedAt: timestampFromDate(new Date(row.engaged_at)),
        expiresAt: row.expires_at ? timestampFromDate(new Date(row.expires_at)) : undefined,
      },
    });
  }

  function manualResource(key: string, manual: string): KillSwitch | null {
    const k = parseKillSwitchKey(key);
    if (!k) return null;
    const v = readKillSwitchValue(manual);
    return create(KillSwitchSchema, {
      metadata: { name: manualName(k.scope, k.target) },
      spec: {
        scope: killSwitchScope(k.scope),
        target: k.target,
        mode: killSwitchMode(v.mode),
        reason: v.reason,
      },
      status: {
        engaged: true,
        keyState: "written",
        engagedBy: v.by ?? "(set directly in the key-value store)",
      },
    });
  }

  /** The keys under the prefix and what holds each, or null when the store does not answer. */
  async function storedKeys(): Promise<Map<string, ReturnType<typeof readEngagers>> | null> {
    try {
      const names = await repo.switchNames(db);
      return new Map(
        (await kv.scan(KILL_SWITCH_KEY_PREFIX)).map((e) => [e.key, readEngagers(e.value, names)]),
      );
    } catch {
      return null;
    }
  }

  const keyStateOf = (
    row: KillSwitchRow,
    keys: Map<string, ReturnType<typeof readEngagers>> | null,
  ): KeyState =>
    keys === null
      ? "unknown"
      : keys.get(killSwitchKey(row.scope, row.target))?.switches[row.name]
        ? "written"
        : "pending";

  async function validate(
    name: string,
    spec: KillSwitchSpec,
  ): Promise<{ scope: KillSwitchScopeName; mode: KillSwitchModeName; ttl: number | null }> {
    const scope = killSwitchScopeName(spec.scope);
    const mode = killSwitchModeName(spec.mode);
    for (const [field, text] of [
      ["name", name],
      ["spec.target", spec.target],
      ["spec.reason", spec.reason],
    ] as const) {
      if (text.includes("\u0000"))
        throw invalidField(field, `${field} must not contain a NUL character (U+0000)`);
    }
    if (scope === "platform" && spec.target !== "platform")
      throw invalidField(
        "spec.target",
        `the platform scope takes the target "platform", not "${spec.target}"`,
      );
    if (scope !== "platform" && spec.target === "platform")
      throw invalidField("spec.target", `"platform" is the target of the platform scope only`);
    if (scope === "fleet" && !/^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/.test(spec.target))
      throw invalidField("spec.target", `"${spec.target}" is not a fleet name`);
    if (name.startsWith("kv-"))
      throw invalidField(
        "metadata.name",
        `names starting with "kv-" are kept for keys set by hand in the key-value store`,
      );
    const ttl = spec.ttl ? ttlSeconds(spec.ttl) : null;
    if (spec.ttl && ttl === null)
      throw invalidField(
        "spec.ttl",
        `spec.ttl "${spec.ttl}" must be a positive duration such as 4h, 30m or 1h30m`,
      );
    if (ttl !== null && ttl > MAX_TTL_SECONDS) {
      throw invalidField(
        "spec.ttl",
        `spec.ttl "${spec.ttl}" is longer than the longest TTL, ${MAX_TTL_SECONDS / 86_400} days (720h); leave ttl empty to engage until released`,
        { max_seconds: MAX_TTL_SECONDS },
      );
    }
    if (scope === "bot" && !(await botKnown(spec.target)))
      throw invalidField("spec.target", `no bot with slug "${spec.target}"`);
    return { scope, mode, ttl };
  }

  /** The projection first; a bot it has not seen yet is asked of its owner, so a halt is never refused for lag. */
  async function botKnown(slug: string): Promise<boolean> {
    if (await repo.isKnownBot(db, slug)) return true;
    if (!deps.botExists) return false;
    try {
      return await deps.botExists(slug);
    } catch (err) {
      throw svcError(
        Code.Unavailable,
        "bot_unverifiable",
        `bot "${slug}" is not yet known to the killswitch service and the bots service did not answer; nothing was engaged, send it again or engage its fleet`,
        { field: "spec.target" },
        { cause: err },
      );
    }
  }

  /** Broadcasts what `key` holds now (released when empty); false when the store cannot say. */
  async function rebroadcastKey(key: string): Promise<boolean> {
    try {
      const value = await kv.get(key);
      if (value === null)
        await publishKillSwitchChanged(bus, { key, engaged: false, reason: "not recorded" });
      else {
        const v = readKillSwitchValue(value);
        await broadcastKey(bus, key, true, v.mode, v.reason);
      }
      return true;
    } catch {
      return false;
    }
  }

  async function engage(
    name: string,
    spec: KillSwitchSpec,
    p: Principal,
    origin: AuditOrigin,
  ): Promise<KillSwitch> {
    const { scope, mode, ttl } = await validate(name, spec);
    const key = killSwitchKey(scope, spec.target);
    // Runners halt on the broadcast alone: nothing below may delay it.
    await broadcastKey(bus, key, true, mode, spec.reason);
    let syncs: KeySync[] = [];
    let row: KillSwitchRow;
    try {
      row = await db.transaction().execute(async (trx) => {
        const previous = await repo.findSwitch(trx, name);
        const keys = [
          key,
          ...(previous && killSwitchKey(previous.scope, previous.target) !== key
            ? [killSwitchKey(previous.scope, previous.target)]
            : []),
        ].sort();
        for (const k of keys) await repo.lockKey(trx, k);
        const saved = await repo.upsertSwitch(trx, {
          name,
          scope,
          target: spec.target,
          mode,
          reason: spec.reason,
          ttl: spec.ttl,
          engaged_by: p.sub,
          expires_at: ttl ? new Date(Date.now() + ttl * 1000) : null,
        });
        await repo.recordAudit(trx, origin, {
          action: "killswitch.engaged",
          outcome: "succeeded",
          resource: `kill_switch/${name}`,
          details: { name, key, mode, reason: spec.reason, ttl: spec.ttl },
        });
        syncs = [await syncKey(trx, kv, scope, spec.target)];
        if (previous && killSwitchKey(previous.scope, previous.target) !== key)
          syncs.push(await syncKey(trx, kv, previous.scope, previous.target));
        return saved;
      });
    } catch (err) {
      // Runners hold a broadcast engagement until they see its key: tell them what the key says.
      const released = await rebroadcastKey(key);
      throw notDurable(
        `kill switch "${name}" was broadcast to the runners but could not be recorded (database: ${(err as Error).message}); it is not durable: ${released ? "runners were told the key's state again" : "the key could not be read, so runners stay halted until a release"}. Engage it again.`,
        { name, not_durable: "database" },
        err,
      );
    }
    const [own, moved] = syncs;
    if (moved && !moved.error) await broadcastSync(bus, moved, "moved");
    if (own?.error) {
      throw notDurable(
        `kill switch "${name}" is recorded and was broadcast to the runners, but its key ${key} could not be written (key-value store: ${own.error.message}); the service writes it as soon as the store answers`,
        { name, key, not_durable: "key-value store" },
        own.error,
      );
    }
    return toResource(row, "written");
  }

  async function release(name: string, origin: AuditOrigin): Promise<void> {
    const row = await repo.findSwitch(db, name);
    const manualKey = row ? undefined : await manualKeyNamed(name);
    if (!row && !manualKey)
      throw svcError(Code.NotFound, "killswitch_not_found", `no kill switch named "${name}"`, {
        name,
      });
    const target = row ? { scope: row.scope, target: row.target } : parseKillSwitchKey(manualKey!)!;
    const key = killSwitchKey(target.scope, target.target);
    let sync: KeySync;
    try {
      sync = await db.transaction().execute(async (trx) => {
        await repo.lockKey(trx, key);
        if (row && !(await repo.deleteSwitch(trx, name)))
          throw svcError(Code.NotFound, "killswitch_not_found", `no kill switch named "${name}"`, {
            name,
          });
        const s = await syncKey(trx, kv, target.scope, target.target, { dropManual: !row });
        // The key must say released before anything else does; otherwise nothing is released.
        if (s.error) throw s.error;
        await repo.recordAudit(trx, origin, {
          action: "killswitch.released",
          outcome: "succeeded",
          resource: `kill_switch/${name}`,
          details: { name, key },
        });
        return s;
      });
    } catch (err) {
      if (err instanceof ConnectError && err.code === Code.NotFound) throw err;
      throw svcError(
        Code.Unavailable,
        "killswitch_store_unreachable",
        `kill switch "${name}" was not released: ${(err as Error).message}; it stays engaged`,
        { name, key },
        { cause: err },
      );
    }
    await broadcastSync(bus, sync, "released");
  }

  async function manualKeyNamed(name: string): Promise<string | undefined> {
    const keys = await storedKeys();
    if (keys === null)
      throw svcError(
        Code.Unavailable,
        "killswitch_store_unreachable",
        "the kill-switch key-value store did not answer; nothing was released",
        { name },
      );
    for (const [key, e] of keys) {
      const k = parseKillSwitchKey(key);
      if (k && e.manual !== null && manualName(k.scope, k.target) === name) return key;
    }
    return undefined;
  }

  return {
    applyKillSwitch: (req, ctx: HandlerContext) =>
      engage(req.name, req.spec!, principalOf(ctx), auditOriginOf(ctx)),

    async getKillSwitch(req) {
      const row = await repo.findSwitch(db, req.name);
      const keys = await storedKeys();
      if (row) return toResource(row, keyStateOf(row, keys));
      for (const [key, e] of keys ?? []) {
        const r = e.manual !== null ? manualResource(key, e.manual) : null;
        if (r?.metadata?.name === req.name) return r;
      }
      throw svcError(Code.NotFound, "killswitch_not_found", `no kill switch named "${req.name}"`, {
        name: req.name,
      });
    },

    async listKillSwitches(req) {
      const size = pageSize(req.limit);
      const after = decodePageToken(SWITCHES, req.pageToken);
      // One order over two sources: the recorded switches by (engaged_at, name), then the keys
      // set by hand by name, which sort after every recorded one (their time is the sentinel).
      const pastRecorded = after?.[0] === AFTER_RECORDED;
      const rows = pastRecorded ? [] : await repo.pageSwitches(db, { limit: size + 1, after });
      const keys = await storedKeys();
      const listed = rows.map((r) => ({
        item: toResource(r, keyStateOf(r, keys)),
        keys: [r.engaged_key, r.name],
      }));
      // Hand-set keys only once the recorded switches are all listed: a short page of them.
      const manual =
        rows.length > size
          ? []
          : [...(keys ?? [])]
              .map(([key, e]) => (e.manual !== null ? manualResource(key, e.manual) : null))
              .map((r) => ({ item: r, name: r?.metadata?.name ?? "" }))
              .filter((m) => m.item && (!pastRecorded || m.name > after![1]!))
              .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
              .map((m) => ({ item: m.item!, keys: [AFTER_RECORDED, m.name] }));
      listed.push(...manual);
      const page = pageOf(listed, size, SWITCHES, (l) => l.keys);
      return create(ListKillSwitchesResponseSchema, {
        items: page.items.map((l) => l.item),
        keyStoreUnreachable: keys === null,
        nextPageToken: page.nextPageToken,
      });
    },

    async deleteKillSwitch(req, ctx) {
      principalOf(ctx);
      await release(req.name, auditOriginOf(ctx));
      return create(DeleteKillSwitchResponseSchema, { name: req.name, released: true });
    },

    async checkEngaged(req) {
      const keys = killSwitchKeysCovering(req.botSlug, req.fleet);
      let values: Array<string | null>;
      try {
        values = await Promise.all(keys.map((k) => kv.get(k)));
      } catch (err) {
        throw svcError(
          Code.Unavailable,
          "killswitch_store_unreachable",
          "the kill-switch key-value store did not answer; whether a switch is engaged is unknown",
          {},
          { cause: err },
        );
      }
      const engaged = keys.filter((_, i) => values[i]);
      return create(CheckEngagedResponseSchema, {
        engaged: engaged.length > 0,
        engagedKeys: engaged,
      });
    },
  };
}
