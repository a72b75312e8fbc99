import { randomUUID } from "node:crypto";
import { create, toBinary, type JsonObject, type JsonValue } from "@bufbuild/protobuf";
import type { ServiceImpl } from "@connectrpc/connect";
import type { Kysely, Transaction } from "kysely";
import {
  BotKind,
  BotStatus,
  BotsService,
  DeleteBotResponseSchema,
  ListBotsResponseSchema,
  ListBotVersionsResponseSchema,
  type BotRuntimeStatus,
  type BotSpec,
} from "@svc/gen/svc/bots/v1/bots_pb.js";
import {
  BotCreatedSchema,
  BotDeletedSchema,
  BotStatusChangedSchema,
  BotVersionCreatedSchema,
} from "@svc/gen/svc/events/v1/events_pb.js";
import { Code, invalidField, svcError } from "@svc/lib/errors";
import { principalOf } from "@svc/lib/auth";
import { enqueueEvent } from "@svc/lib/bus";
import { changedSettings, enqueueControlChange } from "@svc/lib/contracts";
import { isUniqueViolation } from "@svc/lib/db";
import { decodePageToken, pageOf, pageSize } from "@svc/lib/paging";
import { deletable, specEditable, statusTransitionProblem } from "../domain/bot-status.js";
import { specHash } from "../domain/canonical-json.js";
import { riskLimitsProblem } from "../domain/risk-limits.js";
import { isUuid, RESERVED_SLUGS, slugFromName } from "../domain/slug.js";
import { EngineInputError, resolveStrategy } from "../engine/index.js";
import * as repo from "../store/bots.repository.js";
import { findStrategySource, storeStrategyCode } from "../store/strategy-code.repository.js";
import { acceptStrategyCode, type AcceptedSpec } from "../strategy-code/accept-code.js";
import {
  createDeclarationsProbe,
  type DeclarationsProbe,
} from "../strategy-code/declarations-probe.js";
import type { StrategyChecker } from "../strategy-code/strategy-checker.js";
import { countComplianceRuns } from "../store/compliance-runs.repository.js";
import { riskStateOf } from "../store/risk.repository.js";
import { riskStateToProto } from "./risk-mapping.js";
import type { BotRow, BotsDatabase } from "../store/bots.table.js";
import { botNotFound, engineInputRefused } from "./bot-errors.js";
import { runtimeStatusesOf, runtimeStatusOf } from "./runtime-status.js";
import type { KeyValueStore } from "@svc/lib/kv";
import {
  kindName,
  rowToBot,
  rowToSummary,
  rowToVersion,
  specToStored,
  statusName,
} from "./bot-mapping.js";
import { acceptModels, modelDigestsOf } from "../models/accept-models.js";

import { BOTS_SCHEMA } from "../runtime/record-run.js";
export { BOTS_SCHEMA };

type BotsHandlers = Pick<
  ServiceImpl<typeof BotsService>,
  "listBots" | "createBot" | "getBot" | "updateBot" | "deleteBot" | "listBotVersions"
>;

/**
 * Bot CRUD and versions. Every state change and its outbox event commit in one transaction;
 * the bot row is locked while a new version number is taken, so concurrent updates serialize.
 */
export function createBotsHandlers(deps: {
  db: Kysely<BotsDatabase>;
  kv: KeyValueStore;
  strategyChecker: StrategyChecker;
  declarationsProbe?: DeclarationsProbe;
}): BotsHandlers {
  const { db } = deps;
  const probe = deps.declarationsProbe ?? createDeclarationsProbe();
  const accept = async (spec: BotSpec) => {
    const normal = normalizeSpec(spec);
    await acceptModels(db, normal);
    return acceptStrategyCode(
      normal,
      deps.strategyChecker,
      (digest) => findStrategySource(db, digest),
      probe,
    );
  };

  async function mustFind(ref: string): Promise<BotRow> {
    const row = await repo.findBot(db, ref);
    if (!row) throw botNotFound(ref);
    return row;
  }

  return {
    async listBots(req) {
      const size = pageSize(req.limit);
      const filters = {
        status: req.status === BotStatus.UNSPECIFIED ? undefined : statusName(req.status),
        kind: req.kind === 0 ? undefined : kindName(req.kind),
        fleet: req.fleet || undefined,
      };
      const list = { list: "bots", filters, keys: repo.BOT_KEYS };
      const after = decodePageToken(list, req.pageToken);
      // The older `after` (a bot's id) keeps working; a page token takes its place.
      if (!after && req.after && (!isUuid(req.after) || !(await repo.findBot(db, req.after))))
        throw svcError(
          Code.InvalidArgument,
          "invalid_parameter",
          `after=${req.after} is no bot's id`,
          { field: "after" },
        );
      const rows = await repo.listBots(db, {
        ...filters,
        limit: size + 1,
        after,
        afterId: req.after ? req.after.toLowerCase() : undefined,
      });
      const page = pageOf(rows, size, list, (r) => [r.created_key, r.id]);
      const runtime = req.includeRuntime
        ? await runtimeStatusesOf(deps, page.items)
        : new Map<string, BotRuntimeStatus>();
      return create(ListBotsResponseSchema, {
        items: page.items.map((r) => ({ ...rowToSummary(r), runtime: runtime.get(r.id) })),
        nextPageToken: page.nextPageToken,
      });
    },

    async createBot(req, ctx) {
      const actor = principalOf(ctx).sub;
      const accepted = await accept(req.spec!);
      const { spec } = accepted;
      const stored = specToStored(spec);
      const hash = specHash(stored);
      const id = randomUUID();
      try {
        const row = await db.transaction().execute(async (trx) => {
          const inserted = await repo.insertBot(trx, {
            id,
            slug: spec.slug,
            name: spec.name,
            kind: kindName(spec.kind),
            status: "draft",
            fleet: spec.fleet || null,
            current_version: 1,
            spec_hash: hash,
            spec: JSON.stringify(stored),
            created_by: actor,
          });
          await insertVersionWithCode(trx, accepted, {
            bot_id: id,
            version: 1,
            spec_hash: hash,
            spec: JSON.stringify(stored),
            created_by: actor,
          });
          await emit(trx, "bot_created", BotCreatedSchema, {
            botId: id,
            slug: spec.slug,
            version: 1,
            specHash: hash,
            actor,
            fleet: spec.fleet,
            strategyDigest: accepted.code?.digest ?? "",
            modelDigests: modelDigestsOf(accepted.spec),
          });
          return inserted;
        });
        return rowToBot(row);
      } catch (err) {
        if (isUniqueViolation(err)) throw slugTaken(spec.slug, err);
        throw err;
      }
    },

    async getBot(req) {
      const row = await mustFind(req.botRef);
      const risk = await riskStateOf(db, row.id);
      return {
        ...rowToBot(row),
        runtime: await runtimeStatusOf(deps, row),
        ...(risk ? { riskState: riskStateToProto(risk) } : {}),
      };
    },

    async updateBot(req, ctx) {
      if (!req.spec && req.status === BotStatus.UNSPECIFIED) {
        throw svcError(
          Code.InvalidArgument,
          "invalid_argument",
          "nothing to update: send a spec, a status, or both",
          { fields: ["spec", "status"] },
        );
      }
      const actor = principalOf(ctx).sub;
      // Checked before the bot row is locked: a check takes CPU time another update should not
      // wait on. Two updates checked at once then take their turns at the lock.
      const accepted = req.spec ? await accept(req.spec) : undefined;
      try {
        const row = await db.transaction().execute(async (trx) => {
          const current = await repo.lockBot(trx, req.botRef);
          if (!current) throw botNotFound(req.botRef);
          let next = current;
          if (req.status !== BotStatus.UNSPECIFIED)
            next = await changeStatus(trx, next, statusName(req.status), actor);
          if (accepted) next = await changeSpec(trx, next, accepted, actor);
          return next;
        });
        return rowToBot(row);
      } catch (err) {
        if (isUniqueViolation(err)) throw slugTaken(req.spec?.slug ?? "", err);
        throw err;
      }
    },

    async deleteBot(req, ctx) {
      const actor = principalOf(ctx).sub;
      const id = await db.transaction().execute(async (trx) => {
        const row = await repo.lockBot(trx, req.botRef);
        if (!row) throw botNotFound(req.botRef);
        if (!deletable(row.status)) {
          throw svcError(
            Code.FailedPrecondition,
            "invalid_transition",
            `bot "${row.slug}" is active; archive it before deleting it`,
            { status: row.status },
          );
        }
        // Signed reports are kept 7 years and cite these runs by id: the bot stays, archived.
        const runs = await countComplianceRuns(trx, row.id);
        if (runs > 0)
          throw svcError(
            Code.FailedPrecondition,
            "evidence_retained",
            `bot "${row.slug}" has ${runs} conformance or stress run(s), regulatory evidence kept 7 years; it cannot be deleted: archive it instead`,
            { compliance_runs: runs, status: row.status },
          );
        await repo.deleteBot(trx, row.id);
        await emit(trx, "bot_deleted", BotDeletedSchema, { botId: row.id, slug: row.slug, actor });
        return row.id;
      });
      return create(DeleteBotResponseSchema, { id, deleted: true });
    },

    async listBotVersions(req) {
      const size = pageSize(req.limit);
      const bot = await mustFind(req.botRef);
      const list = { list: "bot_versions", filters: { bot: bot.id }, keys: ["int"] as const };
      const after = decodePageToken(list, req.pageToken);
      const rows = await repo.listVersions(db, bot.id, {
        limit: size + 1,
        afterVersion: after ? Number(after[0]) : undefined,
      });
      const page = pageOf(rows, size, list, (r) => [String(r.version)]);
      return create(ListBotVersionsResponseSchema, {
        items: page.items.map(rowToVersion),
        nextPageToken: page.nextPageToken,
      });
    },
  };
}

async function changeStatus(
  trx: Transaction<BotsDatabase>,
  row: BotRow,
  to: BotRow["status"],
  actor: string,
): Promise<BotRow> {
  if (row.status === to) return row;
  const problem = statusTransitionProblem(row.status, to);
  if (problem)
    throw svcError(Code.FailedPrecondition, "invalid_transition", problem, {
      from: row.status,
      to,
    });
  const updated = await repo.updateBot(trx, row.id, { status: to });
  await emit(trx, "bot_status_changed", BotStatusChangedSchema, {
    botId: row.id,
    slug: row.slug,
    fromStatus: row.status,
    toStatus: to,
    actor,
  });
  return updated;
}

async function changeSpec(
  trx: Transaction<BotsDatabase>,
  row: BotRow,
  accepted: AcceptedSpec,
  actor: string,
): Promise<BotRow> {
  const { spec } = accepted;
  const stored = specToStored(spec);
  const hash = specHash(stored);
  if (hash === row.spec_hash) return row;
  if (!specEditable(row.status)) {
    throw svcError(
      Code.FailedPrecondition,
      "invalid_transition",
      `bot "${row.slug}" is archived; restore it to draft before changing its spec`,
      { status: row.status },
    );
  }
  const version = row.current_version + 1;
  await insertVersionWithCode(trx, accepted, {
    bot_id: row.id,
    version,
    spec_hash: hash,
    spec: JSON.stringify(stored),
    created_by: actor,
  });
  const updated = await repo.updateBot(trx, row.id, {
    slug: spec.slug,
    name: spec.name,
    kind: kindName(spec.kind),
    fleet: spec.fleet || null,
    current_version: version,
    spec_hash: hash,
    spec: JSON.stringify(stored),
  });
  await emit(trx, "bot_version_created", BotVersionCreatedSchema, {
    botId: row.id,
    slug: spec.slug,
    version,
    specHash: hash,
    actor,
    fleet: spec.fleet,
    strategyDigest: accepted.code?.digest ?? "",
    modelDigests: modelDigestsOf(accepted.spec),
  });
  await announceControlChanges(trx, {
    row,
    stored,
    version,
    slug: spec.slug,
    fleet: spec.fleet,
    actor,
  });
  return updated;
}

/** What a version's control code is: its strategy (the code by its digest, not its files) and models. */
function controlCodeOf(spec: Record<string, unknown>): JsonObject {
  const strategy = { ...((spec.strategy ?? {}) as JsonObject) };
  if (strategy.code && typeof strategy.code === "object" && !Array.isArray(strategy.code)) {
    const { files: _files, ...code } = strategy.code;
    strategy.code = code;
  }
  return { strategy, models: (spec.models ?? []) as JsonValue };
}

/**
 * A new version that changes the bot's risk limits or its control code is a material control
 * change (RTS 6 Art. 9): announced to the compliance service, which marks the year's validation
 * report as due. A rename, a new data set or engine setting is not.
 */
async function announceControlChanges(
  trx: Transaction<BotsDatabase>,
  c: {
    row: BotRow;
    stored: JsonObject;
    version: number;
    slug: string;
    fleet: string;
    actor: string;
  },
): Promise<void> {
  const base = {
    botId: c.row.id,
    botSlug: c.slug,
    fleet: c.fleet,
    version: c.version,
    previousVersion: c.row.current_version,
    actor: c.actor,
    changedAt: new Date(),
  };
  const risk = changedSettings(
    (c.row.spec.risk ?? {}) as JsonObject,
    (c.stored.risk ?? {}) as JsonObject,
  );
  if (risk) await enqueueControlChange(trx, BOTS_SCHEMA, { ...base, kind: "risk_limits", ...risk });
  const code = changedSettings(controlCodeOf(c.row.spec), controlCodeOf(c.stored));
  if (code)
    await enqueueControlChange(trx, BOTS_SCHEMA, { ...base, kind: "control_code", ...code });
}

/** The version and, when it carries code, its source and bundle: one transaction, never apart. */
async function insertVersionWithCode(
  trx: Transaction<BotsDatabase>,
  accepted: AcceptedSpec,
  row: Parameters<typeof repo.insertVersion>[1],
): Promise<void> {
  const { code } = accepted;
  if (code) await storeStrategyCode(trx, code);
  await repo.insertVersion(trx, {
    ...row,
    strategy_digest: code?.digest ?? null,
    bundle_digest: code?.bundleDigest ?? null,
  });
}

/** Fills the defaults the spec documents, so equal intent hashes equal. */
function normalizeSpec(spec: BotSpec): BotSpec {
  const slug = spec.slug || slugFromName(spec.name);
  if (RESERVED_SLUGS.has(slug)) {
    throw invalidField(
      "spec.slug",
      `"${slug}" is reserved by the route /bots/${slug}; choose another slug`,
    );
  }
  const limitProblem = riskLimitsProblem(spec.risk);
  if (limitProblem) throw invalidField(limitProblem.field, limitProblem.message);
  if (spec.strategy?.family) {
    try {
      resolveStrategy(
        spec.strategy.family,
        spec.strategy.parameters as Record<string, unknown> | undefined,
      );
    } catch (err) {
      // Research bots may name strategies the engine does not run; trading bots may not.
      if (
        err instanceof EngineInputError &&
        (spec.kind !== BotKind.RESEARCH || err.code !== "unknown_strategy")
      ) {
        throw engineInputRefused(err, "strategy");
      }
    }
  }
  return { ...spec, slug };
}

type EventSchema = Parameters<typeof toBinary>[0];
async function emit(
  trx: Transaction<BotsDatabase>,
  type: string,
  schema: EventSchema,
  init: object,
): Promise<void> {
  const payload = toBinary(schema, create(schema, init as never));
  await enqueueEvent(trx, BOTS_SCHEMA, {
    subject: `svc.bots.${type}`,
    type: schema.typeName,
    payload,
  });
}

function slugTaken(slug: string, cause: unknown) {
  return svcError(
    Code.AlreadyExists,
    "slug_taken",
    `a bot with slug "${slug}" already exists; choose another slug`,
    { slug },
    { cause },
  );
}
