import { create, fromJson, toJson, type JsonObject } from "@bufbuild/protobuf";
import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import {
  BotKind,
  BotSchema,
  BotSpecSchema,
  BotStatus,
  BotSummarySchema,
  BotVersionSchema,
  type Bot,
  type BotSpec,
  type BotSummary,
  type BotVersion,
} from "@svc/gen/svc/bots/v1/bots_pb.js";
import type { BotRow, BotVersionRow } from "../store/bots.table.js";
import type { BotStatusName } from "../domain/bot-status.js";

/** Translation between proto messages and rows; no rules live here. */
export function specToStored(spec: BotSpec): JsonObject {
  return toJson(BotSpecSchema, spec, { useProtoFieldName: true }) as JsonObject;
}

export function storedToSpec(json: unknown): BotSpec {
  return fromJson(BotSpecSchema, json as JsonObject, { ignoreUnknownFields: true });
}

export function kindName(kind: BotKind): "trading" | "research" {
  return kind === BotKind.RESEARCH ? "research" : "trading";
}

export function statusName(status: BotStatus): BotStatusName {
  return (
    (
      { [BotStatus.ACTIVE]: "active", [BotStatus.ARCHIVED]: "archived" } as Partial<
        Record<BotStatus, BotStatusName>
      >
    )[status] ?? "draft"
  );
}

const STATUS_OF: Record<BotStatusName, BotStatus> = {
  draft: BotStatus.DRAFT,
  active: BotStatus.ACTIVE,
  archived: BotStatus.ARCHIVED,
};

export function rowToSummary(row: BotRow): BotSummary {
  return create(BotSummarySchema, {
    id: row.id,
    name: row.name,
    slug: row.slug,
    kind: row.kind === "research" ? BotKind.RESEARCH : BotKind.TRADING,
    status: STATUS_OF[row.status],
    currentVersion: row.current_version,
    fleet: row.fleet ?? "",
  });
}

export function rowToBot(row: BotRow): Bot {
  const { $typeName: _, ...summary } = rowToSummary(row);
  return create(BotSchema, {
    ...summary,
    specHash: row.spec_hash,
    spec: storedToSpec(row.spec),
    createdAt: timestampFromDate(new Date(row.created_at)),
    updatedAt: timestampFromDate(new Date(row.updated_at)),
  });
}

export function rowToVersion(row: BotVersionRow): BotVersion {
  return create(BotVersionSchema, {
    version: row.version,
    specHash: row.spec_hash,
    spec: storedToSpec(row.spec),
    createdAt: timestampFromDate(new Date(row.created_at)),
    createdBy: row.created_by,
    strategyDigest: row.strategy_digest ?? "",
  });
}
