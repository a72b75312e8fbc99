import { create } from "@bufbuild/protobuf";
import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import type { HandlerContext, ServiceImpl } from "@connectrpc/connect";
import { sql, type Kysely } from "kysely";
import {
  CheckEngagedResponseSchema,
  DeleteKillSwitchResponseSchema,
  HaltResponseSchema,
  KillSwitchSchema,
  KillSwitchService,
  ListKillSwitchesResponseSchema,
  Mode,
  Scope,
  type KillSwitch,
} from "@svc/gen/svc/killswitch/v1/killswitch_pb.js";
import { principalOf } from "@svc/lib/auth";
import type { EventBus } from "@svc/lib/bus";
import { Code, invalidField, svcError } from "@svc/lib/errors";
import type { KeyValueStore } from "@svc/lib/kv";
import { CHANGED_SUBJECT, KEY_PREFIX, keyOf, parseKey, parseKeyValue, ttlSeconds, type ModeName, type ScopeName } from "../domain/kill-switch-keys.js";

type Handlers = Omit<ServiceImpl<typeof KillSwitchService>, "runDrill" | "listDrills">;

interface Row {
  name: string;
  scope: ScopeName;
  target: string;
  mode: ModeName;
  reason: string;
  ttl: string;
  engaged_by: string;
  engaged_at: Date;
  expires_at: Date | null;
}

const SCOPE: Record<ScopeName, Scope> = { bot: Scope.BOT, fleet: Scope.FLEET, platform: Scope.PLATFORM };
const MODE: Record<ModeName, Mode> = { cancel: Mode.CANCEL, flatten: Mode.FLATTEN, freeze: Mode.FREEZE };
const scopeName = (s: Scope): ScopeName => (s === Scope.PLATFORM ? "platform" : s === Scope.FLEET ? "fleet" : "bot");
const modeName = (m: Mode): ModeName => (m === Mode.FLATTEN ? "flatten" : m === Mode.FREEZE ? "freeze" : "cancel");

/**
 * Kill-switch resources. The key in the key-value store is what bites: engage writes it first
 * and broadcasts, so runners react to the broadcast at once and find the key on their next poll
 * if the broadcast was lost; the database keeps the resource and the audit trail. A key set by
 * hand is shown as a resource too.
 */
export function createKillSwitchHandlers(deps: { db: Kysely<any>; kv: KeyValueStore; bus: EventBus }): Handlers {
  const { db, kv, bus } = deps;

  const broadcast = (key: string, engaged: boolean, mode: ModeName, reason: string) =>
    bus.broadcast(CHANGED_SUBJECT, new TextEncoder().encode(JSON.stringify({ key, engaged, mode, reason }))).catch(() => undefined);

  const audit = (actor: { sub: string; onBehalfOfSub?: string }, type: string, details: object) =>
    db.insertInto("security_audit_events").values({ user_id: actor.onBehalfOfSub ?? actor.sub, actor_user_id: actor.sub, event_type: type, details: JSON.stringify(details) }).execute();

  const kvOrUnavailable = async <T>(what: string, fn: () => Promise<T>): Promise<T> => {
    try {
      return await fn();
    } catch (err) {
      throw svcError(Code.Unavailable, "killswitch_store_unreachable", `the kill-switch key-value store is unreachable; nothing was ${what}`, {}, { cause: err });
    }
  };

  async function engagedKeys(): Promise<Map<string, string>> {
    return new Map((await kvOrUnavailable("read", () => kv.scan(KEY_PREFIX))).map((e) => [e.key, e.value]));
  }

  function toResource(row: Row, engaged: boolean): KillSwitch {
    return create(KillSwitchSchema, {
      metadata: { name: row.name },
      spec: { scope: SCOPE[row.scope], target: row.target, mode: MODE[row.mode], reason: row.reason, ttl: row.ttl },
      status: {
        engaged,
        engagedBy: row.engaged_by,
        engagedAt: timestampFromDate(new Date(row.engaged_at)),
        expiresAt: row.expires_at ? timestampFromDate(new Date(row.expires_at)) : undefined,
      },
    });
  }

  function fromKey(key: string, value: string): KillSwitch | null {
    const k = parseKey(key);
    if (!k) return null;
    const v = parseKeyValue(value);
    return create(KillSwitchSchema, {
      metadata: { name: v.name ?? `kv-${k.scope}-${k.target}` },
      spec: { scope: SCOPE[k.scope], target: k.target, mode: MODE[v.mode], reason: v.reason },
      status: { engaged: true, engagedBy: v.by ?? "(set directly in the key-value store)" },
    });
  }

  async function validateTarget(scope: ScopeName, target: string): Promise<void> {
    if (scope === "platform" && target !== "platform") throw invalidField("spec.target", `the platform scope takes the target "platform", not "${target}"`);
    if (scope !== "platform" && target === "platform") throw invalidField("spec.target", `"platform" is the target of the platform scope only`);
    if (scope === "bot") {
      const bot = await db.selectFrom("known_bots").select("slug").where("slug", "=", target).executeTakeFirst();
      if (!bot) throw invalidField("spec.target", `no bot with slug "${target}"`);
    }
    if (scope === "fleet" && !/^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/.test(target)) throw invalidField("spec.target", `"${target}" is not a fleet name`);
  }

  return {
    async applyKillSwitch(req, ctx: HandlerContext) {
      const p = principalOf(ctx);
      const spec = req.spec!;
      const scope = scopeName(spec.scope);
      const mode = modeName(spec.mode);
      await validateTarget(scope, spec.target);
      const ttl = spec.ttl ? ttlSeconds(spec.ttl) : null;
      if (spec.ttl && ttl === null) throw invalidField("spec.ttl", `spec.ttl "${spec.ttl}" must be a positive duration such as 4h, 30m or 1h30m`);
      const key = keyOf(scope, spec.target);
      const previous = (await db.selectFrom("kill_switches").selectAll().where("name", "=", req.name).executeTakeFirst()) as Row | undefined;
      const value = JSON.stringify({ name: req.name, mode, reason: spec.reason, by: p.sub });
      await kvOrUnavailable("engaged", () => kv.set(key, value, ttl ? { ttlSeconds: ttl } : undefined));
      if (previous && keyOf(previous.scope, previous.target) !== key) {
        await kv.delete(keyOf(previous.scope, previous.target)).catch(() => undefined);
        await broadcast(keyOf(previous.scope, previous.target), false, previous.mode, "moved");
      }
      await broadcast(key, true, mode, spec.reason);
      const row = await db.transaction().execute(async (trx) => {
        const values = { name: req.name, scope, target: spec.target, mode, reason: spec.reason, ttl: spec.ttl, engaged_by: p.sub, expires_at: ttl ? new Date(Date.now() + ttl * 1000) : null };
        const saved = (await trx
          .insertInto("kill_switches")
          .values(values)
          .onConflict((oc) => oc.column("name").doUpdateSet({ ...values, engaged_at: sql`now()` }))
          .returningAll()
          .executeTakeFirstOrThrow()) as Row;
        await trx.insertInto("security_audit_events").values({ user_id: p.onBehalfOfSub ?? p.sub, actor_user_id: p.sub, event_type: "killswitch.engaged", details: JSON.stringify({ name: req.name, key, mode, reason: spec.reason, ttl: spec.ttl }) }).execute();
        return saved;
      });
      return toResource(row, true);
    },

    async getKillSwitch(req) {
      const row = (await db.selectFrom("kill_switches").selectAll().where("name", "=", req.name).executeTakeFirst()) as Row | undefined;
      const keys = await engagedKeys();
      if (row) return toResource(row, keys.has(keyOf(row.scope, row.target)));
      for (const [key, value] of keys) {
        const r = fromKey(key, value);
        if (r?.metadata?.name === req.name) return r;
      }
      throw svcError(Code.NotFound, "killswitch_not_found", `no kill switch named "${req.name}"`, { name: req.name });
    },

    async listKillSwitches() {
      const rows = (await db.selectFrom("kill_switches").selectAll().orderBy("engaged_at").execute()) as Row[];
      const keys = await engagedKeys();
      const items = rows.map((r) => toResource(r, keys.has(keyOf(r.scope, r.target))));
      const known = new Set(rows.map((r) => keyOf(r.scope, r.target)));
      for (const [key, value] of keys) if (!known.has(key)) items.push(fromKey(key, value)!);
      return create(ListKillSwitchesResponseSchema, { items: items.filter(Boolean) });
    },

    async deleteKillSwitch(req, ctx) {
      const p = principalOf(ctx);
      const row = (await db.selectFrom("kill_switches").selectAll().where("name", "=", req.name).executeTakeFirst()) as Row | undefined;
      let key: string | undefined = row ? keyOf(row.scope, row.target) : undefined;
      if (!key) {
        for (const [k, v] of await engagedKeys()) if (fromKey(k, v)?.metadata?.name === req.name) key = k;
      }
      if (!key) throw svcError(Code.NotFound, "killswitch_not_found", `no kill switch named "${req.name}"`, { name: req.name });
      await kvOrUnavailable("released", () => kv.delete(key!));
      await broadcast(key, false, row?.mode ?? "cancel", "released");
      await db.deleteFrom("kill_switches").where("name", "=", req.name).execute();
      await audit(p, "killswitch.released", { name: req.name, key });
      return create(DeleteKillSwitchResponseSchema, { name: req.name, released: true });
    },

    async checkEngaged(req) {
      const keys = [keyOf("platform", "platform")];
      if (req.fleet) keys.push(keyOf("fleet", req.fleet));
      if (req.botSlug) keys.push(keyOf("bot", req.botSlug));
      const values = await kvOrUnavailable("read", () => Promise.all(keys.map((k) => kv.get(k))));
      const engaged = keys.filter((_, i) => values[i]);
      return create(CheckEngagedResponseSchema, { engaged: engaged.length > 0, engagedKeys: engaged });
    },

    async haltAgents() {
      return create(HaltResponseSchema, { workClass: "agent sessions and delegated agent calls (none run on this platform: agent chat and MCP tools are not built)", halted: 0, ids: [] });
    },

    async haltQuantAgents() {
      return create(HaltResponseSchema, { workClass: "research-bot agents (none run on this platform: research-bot chat is not built)", halted: 0, ids: [] });
    },
  };
}

/** Releases switches whose TTL elapsed (their keys expired on their own) and tells the runners. */
export async function releaseExpired(deps: { db: Kysely<any>; kv: KeyValueStore; bus: EventBus }): Promise<string[]> {
  const rows = (await deps.db.deleteFrom("kill_switches").where("expires_at", "<=", sql<Date>`now()`).returningAll().execute()) as Row[];
  for (const row of rows) {
    const key = keyOf(row.scope, row.target);
    await deps.kv.delete(key).catch(() => undefined);
    await deps.bus.broadcast(CHANGED_SUBJECT, new TextEncoder().encode(JSON.stringify({ key, engaged: false, mode: row.mode, reason: "ttl elapsed" }))).catch(() => undefined);
    await deps.db.insertInto("security_audit_events").values({ user_id: "system", actor_user_id: "system", event_type: "killswitch.released", details: JSON.stringify({ name: row.name, key, reason: "ttl elapsed" }) }).execute();
  }
  return rows.map((r) => r.name);
}
