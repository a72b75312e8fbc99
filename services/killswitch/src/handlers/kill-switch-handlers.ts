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
import { assertMembershipFresh, principalOf, type Principal } from "@svc/lib/auth";
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
import { switchChange, type SwitchChange } from "../domain/switch-change.js";
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
  | "getDrillSchedule"
  | "setDrillSchedule"
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

  /** 409 for an apply that would move a switch to another key without saying it means it. */
  function scopeDiffers(
    name: string,
    change: Extract<SwitchChange, { kind: "moved" }>,
    requested: { scope: string; target: string },
  ): ConnectError {
    const was = `${change.from.scope} ${change.from.target}`;
    const asked = `${requested.scope} ${requested.target}`;
    return svcError(
      Code.AlreadyExists,
      "killswitch_scope_differs",
      `kill switch "${name}" is engaged on ${was}; this request names ${asked} (its ${change.differs.join(" and ")} differs). Nothing was changed and ${was} stays halted. Release it first (DELETE /kill-switches/${name}), pick another name, or send rescope=true to move it, which releases ${was}`,
      {
        name,
        differs: change.differs.join(","),
        engaged_scope: change.from.scope,
        engaged_target: change.from.target,
        requested_scope: requested.scope,
        requested_target: requested.target,
      },
    );
  }

  /** Whether applying `ttl` to the switch of that name changes its TTL (before its lock). */
  async function ttlWouldChange(name: string, ttl: string): Promise<boolean> {
    const previous = await repo.findSwitch(db, name);
    return previous !== undefined && previous.ttl !== ttl;
  }

  async function engage(
    name: string,
    spec: KillSwitchSpec,
    rescope: boolean,
    p: Principal,
    origin: AuditOrigin,
    checkLiftingMembership: () => Promise<void>,
  ): Promise<KillSwitch> {
    // A move releases the old key and a new TTL can make the switch lapse sooner: both lift a
    // halt, so both get a release's check (identity asked afresh), never a membership assumed.
    if (rescope) await checkLiftingMembership();
    const { scope, mode, ttl } = await validate(name, spec);
    const key = killSwitchKey(scope, spec.target);
    // Runners halt on the broadcast alone: nothing below may delay it.
    await broadcastKey(bus, key, true, mode, spec.reason);
    let syncs: KeySync[] = [];
    let row: KillSwitchRow;
    try {
      const ttlChecked = rescope || (await ttlWouldChange(name, spec.ttl));
      if (ttlChecked && !rescope) await checkLiftingMembership();
      row = await db.transaction().execute(async (trx) => {
        // Under the name's lock two applies of one name cannot both find it absent (or both
        // move it): the second sees what the first committed.
        await repo.lockName(trx, name);
        const previous = await repo.findSwitch(trx, name);
        const applied = { scope, target: spec.target, mode, reason: spec.reason, ttl: spec.ttl };
        const change = switchChange(previous, applied);
        if (change.kind === "moved" && !rescope) throw scopeDiffers(name, change, applied);
        if (change.kind === "in_place" && change.changed.ttl && !ttlChecked)
          throw svcError(
            Code.Aborted,
            "killswitch_changed_concurrently",
            `kill switch "${name}" was changed while this request was checked; send it again`,
            { name },
          );
        const oldKey =
          change.kind === "moved" ? killSwitchKey(change.from.scope, change.from.target) : null;
        for (const k of [key, ...(oldKey ? [oldKey] : [])].sort()) await repo.lockKey(trx, k);
        const saved = await repo.upsertSwitch(trx, {
          name,
          ...applied,
          engaged_by: p.sub,
          expires_at: ttl ? new Date(Date.now() + ttl * 1000) : null,
        });
        if (previous && oldKey)
          await repo.recordAudit(trx, origin, {
            action: "killswitch.released",
            outcome: "succeeded",
            resource: `kill_switch/${name}`,
            details: {
              name,
              key: oldKey,
              reason: `moved to ${key} by a rescope: ${spec.reason}`,
              moved_to: key,
              engaged_by: previous.engaged_by,
            },
          });
        const changed = change.kind === "in_place" && Object.keys(change.changed).length > 0;
        await repo.recordAudit(trx, origin, {
          action: changed ? "killswitch.changed" : "killswitch.engaged",
          outcome: "succeeded",
          resource: `kill_switch/${name}`,
          details: {
            name,
            key,
            mode,
            reason: spec.reason,
            ttl: spec.ttl,
            ...(changed ? { changed: change.changed } : {}),
            ...(oldKey ? { moved_from: oldKey } : {}),
          },
        });
        syncs = [await syncKey(trx, kv, scope, spec.target)];
        if (previous && oldKey) syncs.push(await syncKey(trx, kv, previous.scope, previous.target));
        return saved;
      });
    } catch (err) {
      // Runners hold a broadcast engagement until they see its key: tell them what the key says.
      const released = await rebroadcastKey(key);
      if (err instanceof ConnectError) throw err;
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

  async function release(name: string, why: string, origin: AuditOrigin): Promise<void> {
    const recorded = await repo.findSwitch(db, name);
    const manualKey = recorded ? undefined : await manualKeyNamed(name);
    const notFound = () =>
      svcError(Code.NotFound, "killswitch_not_found", `no kill switch named "${name}"`, { name });
    if (!recorded && !manualKey) throw notFound();
    let key = recorded ? killSwitchKey(recorded.scope, recorded.target) : manualKey!;
    let sync: KeySync;
    try {
      sync = await db.transaction().execute(async (trx) => {
        let target = parseKillSwitchKey(key)!;
        if (recorded) {
          // Read again under the name's lock: a rescope since the read above moved its key.
          await repo.lockName(trx, name);
          const row = await repo.findSwitch(trx, name);
          if (!row) throw notFound();
          target = { scope: row.scope, target: row.target };
          key = killSwitchKey(row.scope, row.target);
        }
        await repo.lockKey(trx, key);
        if (recorded && !(await repo.deleteSwitch(trx, name))) throw notFound();
        const s = await syncKey(trx, kv, target.scope, target.target, { dropManual: !recorded });
        // The key must say released before anything else does; otherwise nothing is released.
        if (s.error) throw s.error;
        await repo.recordAudit(trx, origin, {
          action: "killswitch.released",
          outcome: "succeeded",
          resource: `kill_switch/${name}`,
          details: { name, key, reason: why },
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
      engage(req.name, req.spec!, req.rescope, principalOf(ctx), auditOriginOf(ctx), () =>
        assertMembershipFresh(ctx),
      ),

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
      await release(req.name, req.reason || "released by request", auditOriginOf(ctx));
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
