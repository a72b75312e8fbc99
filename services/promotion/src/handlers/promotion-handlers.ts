import { create, toBinary } from "@bufbuild/protobuf";
import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import type { KeyObject } from "node:crypto";
import type { HandlerContext, ServiceImpl } from "@connectrpc/connect";
import { signStatement } from "@svc/lib/signed-statement";
import type { Kysely, Transaction } from "kysely";
import {
  ListPromotionRequestsResponseSchema,
  PromotionKind,
  PromotionRequestSchema,
  PromotionService,
  PromotionStatus,
  Verdict,
  type PromotionRequest,
} from "@svc/gen/svc/promotion/v1/promotion_pb.js";
import {
  PromotionApprovedSchema,
  PromotionRevokedSchema,
} from "@svc/gen/svc/events/v1/events_pb.js";
import { hasScope, principalOf, sameSubject, type Principal } from "@svc/lib/auth";
import { enqueueEvent } from "@svc/lib/bus";
import { isUniqueViolation } from "@svc/lib/db";
import { Code, invalidField, svcError } from "@svc/lib/errors";
import type { KeyValueStore } from "@svc/lib/kv";
import { decisionRefusal, TO, type HumanAction } from "../domain/decisions.js";
import { killSwitchKeysFor, runGates, type GatePolicy } from "../domain/gates.js";
import { humanReview } from "../domain/human-review.js";
import * as repo from "../store/promotion.repository.js";
import type {
  GateOutcomeRow,
  KnownVersionRow,
  PromotionDatabase,
  RequestRow,
} from "../store/promotion.table.js";
import {
  kindName,
  riskName,
  rowToRequest,
  statusName,
  submittedToStored,
  verdictName,
} from "./request-mapping.js";

export const PROMOTION_SCHEMA = "promotion";
const DEFAULT_LIMIT = 100;

/** Which kill-switch keys cover a bot (platform, fleet, bot); throws when it cannot tell. */
export type KillSwitchCheck = (
  slug: string | undefined,
  fleet: string | undefined,
) => Promise<string[]>;

/**
 * Asks the bots service (the owner, over Connect) for a bot version the projection lacks: null
 * when the owner has no such version; throws when it cannot be asked.
 */
export type BotVersionLookup = (botRef: string, version: number) => Promise<KnownVersionRow | null>;

/** The scopes that may start or deploy with an ApprovedPromotion token: who may read it. */
const TOKEN_READER_SCOPES = ["run:bots", "deploy:bots"];

export interface PromotionDeps {
  db: Kysely<PromotionDatabase>;
  /** Asks the killswitch service; without one, the key-value keys are read directly. */
  killSwitch?: KillSwitchCheck;
  /** Asks the bots service for a version the projection has not seen yet. */
  botVersion?: BotVersionLookup;
  /** Kinds whose submitter may waive human approval (SVC_PROMOTION_SKIP_HUMAN_KINDS). */
  skipHumanKinds: readonly string[];
  /** Signs ApprovedPromotion tokens; the bots service verifies them offline. */
  signingKey: KeyObject;
  kv: KeyValueStore;
  policy: GatePolicy;
  /** Seconds a request may wait for a human when expiry is enforced; undefined: never expires. */
  approvalTtlSeconds?: number;
}

type Handlers = Omit<ServiceImpl<typeof PromotionService>, never>;

/**
 * Promotion requests: deterministic gates at submission, then human decisions with step-up
 * (enforced by the interceptor from the proto) and four eyes (enforced here). Every decision
 * locks its request row, so of concurrent decisions exactly one wins.
 */
export function createPromotionHandlers(deps: PromotionDeps): Handlers {
  const { db } = deps;

  /** The request as `viewer` may see it: the token only for its approver and those who may start or deploy with it. */
  async function withDecisions(row: RequestRow, viewer: Principal): Promise<PromotionRequest> {
    const decisions = await repo.decisionsOf(db, [row.request_id]);
    const issued = row.status === "approved" || row.status === "promoted";
    const approver = decisions.some(
      (d) => d.action === "approve" && sameSubject(d.actor, humanSubOf(viewer)),
    );
    const mayRead = approver || TOKEN_READER_SCOPES.some((s) => hasScope(viewer, s));
    const token = issued && mayRead ? await approvedPromotionToken(deps.signingKey, row) : "";
    return create(PromotionRequestSchema, {
      ...rowToRequest(row, decisions, token),
      approvedPromotionIssued: issued,
    });
  }

  /** The artifact's bot version: the projection, else its owner; never a guess from a lagging projection. */
  async function knownVersionOf(artifact: {
    botRef: string;
    version: number;
  }): Promise<KnownVersionRow | null> {
    const projected = await repo.findKnownVersion(db, artifact.botRef, artifact.version);
    if (projected) return projected;
    const unverifiable = (why: string, cause?: unknown) =>
      svcError(
        Code.Unavailable,
        "artifact_unverifiable",
        `bot ${artifact.botRef} version ${artifact.version} is not yet known to the promotion service and ${why}; nothing was recorded, send the request again in a moment`,
        { field: "artifact", bot_ref: artifact.botRef, version: artifact.version },
        { cause },
      );
    if (!deps.botVersion) throw unverifiable("no bots service is wired to ask");
    let owned: KnownVersionRow | null;
    try {
      owned = await deps.botVersion(artifact.botRef, artifact.version);
    } catch (err) {
      throw unverifiable(`the bots service did not answer (${(err as Error).message})`, err);
    }
    if (owned) await db.transaction().execute((trx) => repo.upsertKnownVersion(trx, owned!));
    return owned;
  }

  async function list(statuses: RequestRow["status"][] | undefined, limit: number) {
    const rows = await repo.listRequests(db, {
      statuses,
      limit: limit > 0 ? limit : DEFAULT_LIMIT,
    });
    const decisions = await repo.decisionsOf(
      db,
      rows.map((r) => r.request_id),
    );
    return create(ListPromotionRequestsResponseSchema, {
      items: rows.map((r) =>
        create(PromotionRequestSchema, {
          ...rowToRequest(
            r,
            decisions.filter((d) => d.request_id === r.request_id),
          ),
          approvedPromotionIssued: r.status === "approved" || r.status === "promoted",
        }),
      ),
    });
  }

  async function engagedKeys(
    slug: string | undefined,
    fleet: string | undefined,
  ): Promise<string[]> {
    try {
      if (deps.killSwitch) return await deps.killSwitch(slug, fleet);
      const keys = killSwitchKeysFor(slug, fleet);
      const values = await Promise.all(keys.map((k) => deps.kv.get(k)));
      return keys.filter((_, i) => values[i]);
    } catch {
      // Cannot tell whether a switch is engaged: fail closed.
      return ["(kill-switch state unknown: the killswitch service or its store is unreachable)"];
    }
  }

  async function decide(
    action: HumanAction,
    requestId: string,
    note: string,
    ctx: HandlerContext,
  ): Promise<PromotionRequest> {
    const p = principalOf(ctx);
    const decider = { humanSub: humanSubOf(p), isAgent: p.actorType === "agent" };
    let killSwitchDenial: string[] | null = null;
    const row = await db.transaction().execute(async (trx) => {
      const current = await repo.lockRequest(trx, requestId);
      if (!current) throw notFound(requestId);
      let status = current.status;
      if (
        status === "pending" &&
        current.expires_at &&
        new Date(current.expires_at).getTime() <= Date.now()
      ) {
        await repo.setStatus(trx, requestId, "expired");
        status = "expired";
      }
      const refusal = decisionRefusal(action, status, current.submitter_sub, decider);
      if (refusal) {
        if (refusal.code === "request_expired") return { ...current, status };
        throw svcError(
          refusal.code === "four_eyes_violation" || refusal.code === "agent_not_allowed"
            ? Code.PermissionDenied
            : Code.FailedPrecondition,
          refusal.code,
          refusal.message,
          { status, request_id: requestId },
        );
      }
      if (action === "approve") {
        const known = current.bot_id
          ? await trx
              .selectFrom("known_bot_versions")
              .select(["slug", "fleet"])
              .where("bot_id", "=", current.bot_id)
              .where("version", "=", current.version!)
              .executeTakeFirst()
          : undefined;
        const engaged = await engagedKeys(known?.slug, known?.fleet);
        if (engaged.length > 0) {
          const gates: GateOutcomeRow[] = [
            ...(current.gates as unknown as GateOutcomeRow[]),
            {
              name: "kill_switch_clear_at_approval",
              passed: false,
              detail: `engaged: ${engaged.join(", ")}`,
            },
          ];
          await repo.setStatus(trx, requestId, "denied", JSON.stringify(gates));
          killSwitchDenial = engaged;
          return current;
        }
      }
      await repo.setStatus(trx, requestId, TO[action]);
      await repo.insertDecision(trx, {
        request_id: requestId,
        actor: decider.humanSub,
        action,
        note,
        acr: p.acr ?? "",
        amr: p.amr,
        auth_time: p.authTime ? new Date(p.authTime * 1000) : null,
      });
      if (action === "approve") await emitApproved(trx, current, decider.humanSub);
      if (action === "revoke") await emitRevoked(trx, current, decider.humanSub);
      return (await repo.findRequest(trx, requestId))!;
    });
    if (row.status === "expired") {
      throw svcError(
        Code.FailedPrecondition,
        "request_expired",
        `the request expired before a decision; it can no longer be ${action === "approve" ? "approved" : "rejected"}`,
        { status: "expired", request_id: requestId },
      );
    }
    if (killSwitchDenial) {
      throw svcError(
        Code.FailedPrecondition,
        "killswitch_engaged",
        `a kill switch was engaged during review (${(killSwitchDenial as string[]).join(", ")}); the request is now denied`,
        { status: "denied", request_id: requestId },
      );
    }
    return withDecisions(row, p);
  }

  return {
    async createPromotionRequest(req, ctx) {
      const p = principalOf(ctx);
      const kind = kindName(req.kind);
      if (kind === "allocation") {
        if (!req.allocation)
          throw invalidField("allocation", "allocation is required when kind is allocation");
        if (req.artifact)
          throw invalidField(
            "artifact",
            "artifact must be absent when kind is allocation; send the allocation only",
          );
      } else {
        if (!req.artifact)
          throw invalidField("artifact", `artifact is required when kind is ${kind}`);
        if (req.allocation)
          throw invalidField("allocation", `allocation must be absent when kind is ${kind}`);
      }
      if (req.validation!.verdict === Verdict.FAIL) {
        throw svcError(
          Code.InvalidArgument,
          "validation_failed",
          "validation.verdict is FAIL: a strategy that failed independent validation cannot be submitted",
          { field: "validation.verdict" },
        );
      }
      const artifact = req.artifact
        ? {
            botRef: req.artifact.botRef,
            version: req.artifact.version,
            versionHash: req.artifact.versionHash,
          }
        : undefined;
      const known = artifact ? await knownVersionOf(artifact) : null;
      const allocationTargets =
        req.kind === PromotionKind.ALLOCATION ? Object.keys(req.allocation?.capital ?? {}) : [];
      const engaged = known
        ? await engagedKeys(known.slug, known.fleet)
        : [
            ...new Set(
              (
                await Promise.all([
                  engagedKeys(undefined, undefined),
                  ...allocationTargets.map((t) => engagedKeys(t, t)),
                ])
              ).flat(),
            ),
          ];
      const review = humanReview(
        kind,
        req.requiresHumanApproval,
        p.actorType === "agent" || p.delegated,
        deps.skipHumanKinds,
      );
      const requiresHuman = review.required;
      const ledger =
        deps.policy.trialLedgerEnforce && known
          ? (
              await db
                .selectFrom("trials")
                .select(["spec_hash", "daily_returns"])
                .where("bot_id", "=", known.bot_id)
                .orderBy("recorded_at")
                .orderBy("trial_id")
                .execute()
            ).map((t) => ({
              specHash: t.spec_hash,
              dailyReturns: t.daily_returns as unknown as number[],
            }))
          : undefined;
      const allocationLedger =
        deps.policy.trialLedgerEnforce && kind === "allocation"
          ? await repo.allocationLedger(db, allocationTargets)
          : undefined;
      const { gates, status } = runGates({
        allocationLedger,
        kind,
        validationVerdict: verdictName(req.validation!.verdict),
        riskDecision: riskName(req.risk!.decision),
        artifact,
        knownVersion: known,
        killSwitch: { engagedKeys: engaged },
        evidence: req.evidence,
        policy: deps.policy,
        requiresHumanApproval: requiresHuman,
        ledger,
      });
      const submitter = humanSubOf(p);
      try {
        const row = await db.transaction().execute(async (trx) => {
          await repo.insertRequest(trx, {
            request_id: req.requestId,
            kind,
            status,
            body: JSON.stringify(submittedToStored(req)),
            gates: JSON.stringify(gates),
            requested_by: req.requestedBy || p.sub,
            submitter_sub: submitter,
            requires_human_approval: requiresHuman,
            bot_id: known?.bot_id ?? null,
            version: known?.version ?? null,
            version_hash: known?.spec_hash ?? null,
            expires_at:
              deps.approvalTtlSeconds && status === "pending"
                ? new Date(Date.now() + deps.approvalTtlSeconds * 1000)
                : null,
          });
          const inserted = (await repo.findRequest(trx, req.requestId))!;
          if (status === "approved") {
            // The decision log names the policy that let the request through without a person.
            await repo.insertDecision(trx, {
              request_id: req.requestId,
              actor: "(policy)",
              action: "auto_approve",
              note: review.policy,
              acr: "",
              amr: [],
              auth_time: null,
            });
            await emitApproved(trx, inserted, "(policy: SVC_PROMOTION_SKIP_HUMAN_KINDS)");
          }
          return inserted;
        });
        return withDecisions(row, p);
      } catch (err) {
        if (isUniqueViolation(err))
          throw svcError(
            Code.AlreadyExists,
            "request_exists",
            `a promotion request with request_id "${req.requestId}" already exists`,
            { field: "request_id", request_id: req.requestId },
            { cause: err },
          );
        throw err;
      }
    },

    async listPromotionRequests(req) {
      const status =
        req.status === PromotionStatus.UNSPECIFIED ? undefined : statusName(req.status);
      return list(status ? [status] : undefined, req.limit);
    },

    async getPromotionRequest(req, ctx) {
      const row = await repo.findRequest(db, req.requestId);
      if (!row) throw notFound(req.requestId);
      return withDecisions(row, principalOf(ctx));
    },

    approvePromotionRequest: (req, ctx) => decide("approve", req.requestId, req.note, ctx),
    rejectPromotionRequest: (req, ctx) => decide("reject", req.requestId, req.reason, ctx),
    revokePromotionRequest: (req, ctx) => decide("revoke", req.requestId, req.reason, ctx),

    async listPendingApprovals() {
      return list(["pending"], 1000);
    },
  };
}

/** The person behind a call: an agent's principal acts for onBehalfOfSub. */
function humanSubOf(p: Principal): string {
  return p.onBehalfOfSub ?? p.sub;
}

async function emitApproved(
  trx: Transaction<PromotionDatabase>,
  row: RequestRow,
  approver: string,
): Promise<void> {
  // An allocation carries its proposal: the live plane applies the capital and limits.
  const allocation = row.kind === "allocation" ? rowToRequest(row, []).allocation : undefined;
  const ev = create(PromotionApprovedSchema, {
    capital: allocation?.capital ?? {},
    limits: allocation?.limits,
    requestId: row.request_id,
    botRef: row.bot_id ?? "",
    version: row.version ?? 0,
    versionHash: row.version_hash ?? "",
    approver,
    approvedAt: timestampFromDate(new Date()),
  });
  await enqueueEvent(trx as unknown as Transaction<any>, PROMOTION_SCHEMA, {
    subject: "svc.promotion.approved",
    type: PromotionApprovedSchema.typeName,
    payload: toBinary(PromotionApprovedSchema, ev),
  });
}

async function emitRevoked(
  trx: Transaction<PromotionDatabase>,
  row: RequestRow,
  actor: string,
): Promise<void> {
  const ev = create(PromotionRevokedSchema, {
    requestId: row.request_id,
    botRef: row.bot_id ?? "",
    actor,
    version: row.version ?? 0,
    versionHash: row.version_hash ?? "",
  });
  await enqueueEvent(trx as unknown as Transaction<any>, PROMOTION_SCHEMA, {
    subject: "svc.promotion.revoked",
    type: PromotionRevokedSchema.typeName,
    payload: toBinary(PromotionRevokedSchema, ev),
  });
}

/** Lifetime of an ApprovedPromotion token: long enough to start a session, short enough to not outlive a revocation by much. */
export const APPROVED_PROMOTION_TTL_SECONDS = 600;

/**
 * The ApprovedPromotion token: a signed, short-lived statement that this request approved this
 * bot version. Paper start and deploy present it; the bots service verifies it offline.
 */
function approvedPromotionToken(key: KeyObject, row: RequestRow): Promise<string> {
  return signStatement(
    key,
    {
      request_id: row.request_id,
      kind: row.kind,
      bot_id: row.bot_id ?? "",
      version: row.version ?? 0,
      version_hash: row.version_hash ?? "",
    },
    { audience: "svc:bots", ttlSeconds: APPROVED_PROMOTION_TTL_SECONDS },
  );
}

function notFound(id: string) {
  return svcError(
    Code.NotFound,
    "request_not_found",
    `no promotion request with request_id "${id}"`,
    { request_id: id },
  );
}
