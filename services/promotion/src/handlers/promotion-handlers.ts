import { create, toBinary, type JsonObject } from "@bufbuild/protobuf";
import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import type { KeyObject } from "node:crypto";
import type { HandlerContext, ServiceImpl } from "@connectrpc/connect";
import type { Kysely, Transaction } from "kysely";
import {
  ListPromotionRequestsResponseSchema,
  PromotionKind,
  PromotionRequestSchema,
  PromotionService,
  PromotionStatus,
  Verdict,
  type CreatePromotionRequestRequest,
  type PromotionRequest,
} from "@svc/gen/svc/promotion/v1/promotion_pb.js";
import {
  PromotionApprovedSchema,
  PromotionRevokedSchema,
} from "@svc/gen/svc/events/v1/events_pb.js";
import { auditOriginOf, recordAudit, type AuditOutcome } from "@svc/lib/audit";
import { hasScope, principalOf, type Principal } from "@svc/lib/auth";
import { enqueueEvent } from "@svc/lib/bus";
import { isUniqueViolation } from "@svc/lib/db";
import { Code, invalidField, svcError } from "@svc/lib/errors";
import { decodePageToken, pageOf, pageSize } from "@svc/lib/paging";
import {
  decisionRefusal,
  TO,
  type Decider,
  type Submitter,
  type DecisionRefusal,
  type HumanAction,
} from "../domain/decisions.js";
import { runGates, type GatePolicy } from "../domain/gates.js";
import { humanReview } from "../domain/human-review.js";
import { knownVersionCache } from "./known-version-cache.js";
import { ledgerWithReturns, type TrialReturnsLookup } from "./ledger-returns.js";
import * as repo from "../store/promotion.repository.js";
import type {
  DecisionRow,
  GateOutcomeRow,
  KnownVersionRow,
  PromotionDatabase,
  PromotionStatusName,
  RequestRow,
} from "../store/promotion.table.js";
import { signApprovedPromotion } from "../tokens/approved-promotion-token.js";
import {
  kindName,
  riskName,
  rowToRequest,
  statusName,
  submittedToStored,
  verdictName,
} from "./request-mapping.js";

export const PROMOTION_SCHEMA = "promotion";

/** Which kill-switch keys engage a bot (platform, fleet, bot); throws when it cannot tell. */
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
  /** Asks the killswitch service (the owner of the switches), never its keys. */
  killSwitch: KillSwitchCheck;
  /** Asks the bots service for a version the projection has not seen yet. */
  botVersion?: BotVersionLookup;
  /** Asks the bots service for the daily returns of trials the gate judges (read once, kept). */
  trialReturns?: TrialReturnsLookup;
  /** Kinds whose submitter may waive human approval (SVC_PROMOTION_SKIP_HUMAN_KINDS). */
  skipHumanKinds: readonly string[];
  /** Signs ApprovedPromotion tokens; the bots service verifies them offline. */
  signingKey: KeyObject;
  policy: GatePolicy;
  /** Seconds a request may wait for a human when expiry is enforced; undefined: never expires. */
  approvalTtlSeconds?: number;
}

type Handlers = Omit<ServiceImpl<typeof PromotionService>, never>;

/** How a decision's transaction ended; what it committed is final either way. */
type Decided =
  /** The row and its decision log as the transaction left them (a later decision not mixed in). */
  | { outcome: "decided"; row: RequestRow; decisions: DecisionRow[] }
  /** The request was pending past its expiry: now recorded as expired. */
  | { outcome: "expired" }
  /** A kill switch engaged the bot during review: the request is now denied. */
  | { outcome: "kill_switch_engaged"; engagedKeys: string[] }
  /** Who may not decide tried to (four eyes, an agent): refused, and the attempt audited. */
  | { outcome: "refused"; refusal: DecisionRefusal; status: PromotionStatusName };

/** What an approval settled before taking the row lock: the kill switch's answer and the token. */
type ApprovalCheck = { clear: true; token: string } | { clear: false; engagedKeys: string[] };

/**
 * Promotion requests: deterministic gates at submission, then human decisions with step-up
 * (enforced by the interceptor from the proto) and four eyes (enforced here). Every decision
 * locks its request row, so of concurrent decisions exactly one wins.
 */
export function createPromotionHandlers(deps: PromotionDeps): Handlers {
  const { db } = deps;
  const versions = knownVersionCache();
  const insertIfProjected = repo.insertRequestIfProjected();

  /** The request as `viewer` may see it: the token only for its approver and those who may start or deploy with it. */
  async function withDecisions(row: RequestRow, viewer: Principal): Promise<PromotionRequest> {
    return present(row, await repo.decisionsOf(db, [row.request_id]), viewer);
  }

  /** `withDecisions` with the log in hand; `submitted`, when the caller holds it, spares parsing the stored body. */
  function present(
    row: RequestRow,
    decisions: DecisionRow[],
    viewer: Principal,
    submitted?: CreatePromotionRequestRequest,
  ): PromotionRequest {
    const issued = row.status === "approved" || row.status === "promoted";
    // Reading the token is a grant: the approver's subject exactly, never a look-alike of it
    // (sameSubject errs towards "same", which is right for a refusal only).
    const approver = decisions.some(
      (d) => d.action === "approve" && d.actor === humanSubOf(viewer),
    );
    const mayRead = approver || TOKEN_READER_SCOPES.some((s) => hasScope(viewer, s));
    const token = issued && mayRead ? (row.approved_promotion_token ?? "") : "";
    return create(PromotionRequestSchema, {
      ...rowToRequest(row, decisions, token, submitted),
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

  async function list(
    name: string,
    statuses: RequestRow["status"][] | undefined,
    req: { limit: number; pageToken: string },
  ) {
    const size = pageSize(req.limit);
    const page = { list: name, filters: { status: statuses }, keys: repo.REQUEST_KEYS };
    const before = decodePageToken(page, req.pageToken);
    const rows = await repo.listRequests(db, { statuses, limit: size + 1, before });
    const { items, nextPageToken } = pageOf(rows, size, page, (r) => [r.created_key, r.request_id]);
    const decisions = await repo.decisionsOf(
      db,
      items.map((r) => r.request_id),
    );
    return create(ListPromotionRequestsResponseSchema, {
      nextPageToken,
      items: items.map((r) =>
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

  /** The keys that engage a bot, asked of the killswitch service; a 503 when it cannot tell. */
  async function engagedKeys(
    slug: string | undefined,
    fleet: string | undefined,
  ): Promise<string[]> {
    try {
      return await deps.killSwitch(slug, fleet);
    } catch (err) {
      // Unknown is not clear: refuse to decide, record nothing, let the caller send it again.
      throw svcError(
        Code.Unavailable,
        "killswitch_unverifiable",
        `whether a kill switch is engaged cannot be told (${(err as Error).message}); nothing was recorded, send the request again in a moment`,
        { ...(slug ? { bot_slug: slug } : {}), ...(fleet ? { fleet } : {}) },
        { cause: err },
      );
    }
  }

  /** A pending request past its expiry reads as expired. */
  function effectiveStatus(row: RequestRow): PromotionStatusName {
    const lapsed =
      row.status === "pending" &&
      row.expires_at !== null &&
      new Date(row.expires_at).getTime() <= Date.now();
    return lapsed ? "expired" : row.status;
  }

  /**
   * Everything an approval needs from outside the database, settled before the row is locked so
   * a slow killswitch service never holds the lock: which switches engage the request's bot and,
   * when none does, the token (signed once, stored with the approval). Null when the request
   * would be refused anyway: the locked pass raises the refusal without asking anyone.
   */
  async function checkApproval(row: RequestRow, decider: Decider): Promise<ApprovalCheck | null> {
    if (decisionRefusal("approve", effectiveStatus(row), submitterOf(row), decider)) return null;
    const bot =
      row.bot_id && row.version !== null
        ? await repo.findBotOfVersion(db, row.bot_id, row.version)
        : undefined;
    const engaged = await engagedKeys(bot?.slug, bot?.fleet);
    return engaged.length > 0
      ? { clear: false, engagedKeys: engaged }
      : { clear: true, token: await signApprovedPromotion(deps.signingKey, row) };
  }

  /**
   * One decision on one request. Outside calls come first (the kill switch, the token); under
   * the row lock only what a concurrent decision may have changed is checked again: the status,
   * its expiry, who may decide (the bot a request names never changes).
   */
  async function decide(
    action: HumanAction,
    requestId: string,
    note: string,
    ctx: HandlerContext,
  ): Promise<PromotionRequest> {
    const audit = (
      trx: Transaction<PromotionDatabase>,
      act: HumanAction,
      outcome: AuditOutcome,
      id: string,
      details: JsonObject,
    ) =>
      recordAudit(trx, PROMOTION_SCHEMA, "promotion", auditOriginOf(ctx), {
        action: `promotion.${act}`,
        outcome,
        resource: `promotion_request/${id}`,
        details,
      });
    const p = principalOf(ctx);
    const decider: Decider = {
      humanSub: humanSubOf(p),
      isAgent: p.actorType === "agent",
      internalUserId: p.internalUserId,
    };
    const seen = await repo.findRequest(db, requestId);
    if (!seen) throw notFound(requestId);
    const approval = action === "approve" ? await checkApproval(seen, decider) : null;

    const decided = await db.transaction().execute(async (trx): Promise<Decided> => {
      const current = await repo.lockRequest(trx, requestId);
      if (!current) throw notFound(requestId);
      const status = effectiveStatus(current);
      if (status !== current.status) await repo.setStatus(trx, requestId, status);
      const refusal = decisionRefusal(action, status, submitterOf(current), decider);
      if (refusal?.code === "request_expired") return { outcome: "expired" };
      if (refusal?.code === "four_eyes_violation" || refusal?.code === "agent_not_allowed") {
        // A refused attempt to decide is itself a security event: it commits, the decision not.
        await audit(trx, action, "denied", requestId, { reason: refusal.code, status });
        return { outcome: "refused", refusal, status };
      }
      if (refusal) throw refusalError(refusal, status, requestId);
      if (action === "approve") {
        // Not refused before the lock means checked before it: the status only moves on.
        if (!approval) throw new Error(`approval of ${requestId} reached the lock unchecked`);
        if (!approval.clear) {
          const gates: GateOutcomeRow[] = [
            ...current.gates,
            {
              name: "kill_switch_clear_at_approval",
              passed: false,
              detail: `engaged: ${approval.engagedKeys.join(", ")}`,
            },
          ];
          await repo.setStatus(trx, requestId, "denied", JSON.stringify(gates));
          await audit(trx, action, "denied", requestId, {
            reason: "killswitch_engaged",
            engaged_keys: approval.engagedKeys,
          });
          return { outcome: "kill_switch_engaged", engagedKeys: approval.engagedKeys };
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
      if (approval?.clear) {
        await repo.storeApprovedPromotionToken(trx, requestId, approval.token);
        await emitApproved(trx, current, decider.humanSub);
      }
      if (action === "revoke") await emitRevoked(trx, current, decider.humanSub);
      await audit(trx, action, "succeeded", requestId, {
        from: status,
        to: TO[action],
        note,
        acr: p.acr ?? "",
        amr: p.amr,
      });
      return {
        outcome: "decided",
        row: (await repo.findRequest(trx, requestId))!,
        decisions: await repo.decisionsOf(trx, [requestId]),
      };
    });

    switch (decided.outcome) {
      case "refused":
        throw refusalError(decided.refusal, decided.status, requestId);
      case "expired":
        throw svcError(
          Code.FailedPrecondition,
          "request_expired",
          `the request expired before a decision; it can no longer be ${action === "approve" ? "approved" : "rejected"}`,
          { status: "expired", request_id: requestId },
        );
      case "kill_switch_engaged":
        throw svcError(
          Code.FailedPrecondition,
          "killswitch_engaged",
          `a kill switch was engaged during review (${decided.engagedKeys.join(", ")}); the request is now denied`,
          { status: "denied", request_id: requestId },
        );
      case "decided":
        return present(decided.row, decided.decisions, p);
    }
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
            strategyDigest: req.artifact.strategyDigest,
            modelDigests: req.artifact.modelDigests,
          }
        : undefined;
      const seen = artifact && versions.get(artifact.botRef, artifact.version);
      if (artifact && seen) {
        const answer = await gateAndRecord(req, p, artifact, seen);
        if (answer) return answer;
        // The projection moved since: gate again on what it holds now.
        versions.forget(artifact.botRef, artifact.version);
      }
      const known = artifact ? await knownVersionOf(artifact) : null;
      if (artifact && known) versions.set(artifact.botRef, artifact.version, known);
      return (await gateAndRecord(req, p, artifact, known, { checked: true }))!;
    },

    async listPromotionRequests(req) {
      const status =
        req.status === PromotionStatus.UNSPECIFIED ? undefined : statusName(req.status);
      return list("promotion_requests", status ? [status] : undefined, req);
    },

    async getPromotionRequest(req, ctx) {
      const row = await repo.findRequest(db, req.requestId);
      if (!row) throw notFound(req.requestId);
      return withDecisions(row, principalOf(ctx));
    },

    approvePromotionRequest: (req, ctx) => decide("approve", req.requestId, req.note, ctx),
    rejectPromotionRequest: (req, ctx) => decide("reject", req.requestId, req.reason, ctx),
    revokePromotionRequest: (req, ctx) => decide("revoke", req.requestId, req.reason, ctx),

    async listPendingApprovals(req) {
      return list("promotion_approvals", ["pending"], req);
    },
  };

  /**
   * Runs the gates of a valid request on the bot version `known` (null: none, or not known) and
   * records it with their outcome. A version just read from the projection (`checked`) is
   * recorded as it was; one from the cache only if the projection still holds it, else this
   * answers undefined having recorded nothing.
   */
  async function gateAndRecord(
    req: CreatePromotionRequestRequest,
    p: Principal,
    artifact:
      | {
          botRef: string;
          version: number;
          versionHash: string;
          strategyDigest: string;
          modelDigests: Record<string, string>;
        }
      | undefined,
    known: KnownVersionRow | null,
    opts: { checked?: boolean } = {},
  ): Promise<PromotionRequest | undefined> {
    const kind = kindName(req.kind);
    const allocationTargets =
      req.kind === PromotionKind.ALLOCATION ? Object.keys(req.allocation?.capital ?? {}) : [];
    // The kill switch and the ledger do not depend on each other: asked at once.
    const [engaged, ledger, allocationLedger] = await Promise.all([
      known
        ? engagedKeys(known.slug, known.fleet)
        : Promise.all([
            engagedKeys(undefined, undefined),
            ...allocationTargets.map((t) => engagedKeys(t, t)),
          ]).then((keys) => [...new Set(keys.flat())]),
      deps.policy.trialLedgerEnforce && known
        ? ledgerWithReturns(db, known.bot_id, known.slug, deps.trialReturns)
        : undefined,
      deps.policy.trialLedgerEnforce && kind === "allocation"
        ? repo.allocationLedger(db, allocationTargets)
        : undefined,
    ]);
    // Too few trials to judge: refused before anything is recorded, so the submitter can run
    // the sweep (or the backtests) the gate needs and send the same request again.
    if (ledger && known && ledger.length < deps.policy.minTrials)
      throw svcError(
        Code.FailedPrecondition,
        "too_few_trials",
        `the TrialLedger holds ${ledger.length} trial${ledger.length === 1 ? "" : "s"} of bot ${known.slug}; the trial_ledger gate needs at least ${deps.policy.minTrials} (SVC_TRIAL_LEDGER_MIN_TRIALS) to deflate its Sharpe ratio and estimate overfitting: run a sweep (POST /bots/${known.slug}/sweeps) or more backtests, then send this request again`,
        { trials: ledger.length, minimum: deps.policy.minTrials, bot_ref: known.slug },
      );
    const review = humanReview(
      kind,
      req.requiresHumanApproval,
      p.actorType === "agent" || p.delegated,
      deps.skipHumanKinds,
    );
    const requiresHuman = review.required;
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
    const stored = {
      request_id: req.requestId,
      kind,
      bot_id: known?.bot_id ?? null,
      version: known?.version ?? null,
      version_hash: known?.spec_hash ?? null,
      strategy_digest: known?.strategy_digest ?? null,
      model_digests: known?.model_digests ?? null,
    };
    // Approved by policy: the token is signed now, once, and stored with the request.
    const token =
      status === "approved" ? await signApprovedPromotion(deps.signingKey, stored) : null;
    const record = {
      ...stored,
      status,
      body: JSON.stringify(submittedToStored(req)),
      gates: JSON.stringify(gates),
      requested_by: req.requestedBy || p.sub,
      submitter_sub: submitter,
      submitter_internal_user_id: p.internalUserId ?? null,
      requires_human_approval: requiresHuman,
      approved_promotion_token: token,
      expires_at:
        deps.approvalTtlSeconds && status === "pending"
          ? new Date(Date.now() + deps.approvalTtlSeconds * 1000)
          : null,
    };
    const insert = (to: typeof db | Transaction<PromotionDatabase>) =>
      known && !opts.checked
        ? insertIfProjected(to, record, known)
        : repo.insertRequest(to, record);
    try {
      // Pending or denied: the row with its gates is all there is to write, and one statement
      // is its own transaction. Its answer is the stored row; a new request has no decisions.
      if (status !== "approved") {
        const row = await insert(db);
        return row && present(row, [], p, req);
      }
      const recorded = await db.transaction().execute(async (trx) => {
        const inserted = await insert(trx);
        if (!inserted) return undefined;
        // The decision log names the policy that let the request through without a person.
        const decision = await repo.insertDecision(trx, {
          request_id: req.requestId,
          actor: "(policy)",
          action: "auto_approve",
          note: review.policy,
          acr: "",
          amr: [],
          auth_time: null,
        });
        await emitApproved(trx, inserted, "(policy: SVC_PROMOTION_SKIP_HUMAN_KINDS)");
        return { row: inserted, decision };
      });
      return recorded && present(recorded.row, [recorded.decision], p, req);
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
  }
}

/** Who submitted a stored request, as four eyes compares people. */
function submitterOf(row: RequestRow): Submitter {
  return { sub: row.submitter_sub, internalUserId: row.submitter_internal_user_id };
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
  await enqueueEvent(trx, PROMOTION_SCHEMA, {
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
  await enqueueEvent(trx, PROMOTION_SCHEMA, {
    subject: "svc.promotion.revoked",
    type: PromotionRevokedSchema.typeName,
    payload: toBinary(PromotionRevokedSchema, ev),
  });
}

function notFound(id: string) {
  return svcError(
    Code.NotFound,
    "request_not_found",
    `no promotion request with request_id "${id}"`,
    { request_id: id },
  );
}

/** A refused decision as the caller sees it: who may not decide is a 403, a wrong state a 412. */
function refusalError(refusal: DecisionRefusal, status: PromotionStatusName, requestId: string) {
  return svcError(
    refusal.code === "four_eyes_violation" || refusal.code === "agent_not_allowed"
      ? Code.PermissionDenied
      : Code.FailedPrecondition,
    refusal.code,
    refusal.message,
    { status, request_id: requestId },
  );
}
