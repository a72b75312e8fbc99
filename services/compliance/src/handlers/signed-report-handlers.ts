import { randomUUID } from "node:crypto";
import { create, type JsonObject } from "@bufbuild/protobuf";
import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import { Code, type ServiceImpl } from "@connectrpc/connect";
import type { Kysely } from "kysely";
import {
  ComplianceService,
  DueValidationReportsSchema,
  SignedReportSchema,
  SignedReportsSchema,
  ValidationReportSchema,
  type SignedReport,
} from "@svc/gen/svc/compliance/v1/compliance_pb.js";
import { auditOriginOf, type AuditOrigin } from "@svc/lib/audit";
import { principalOf } from "@svc/lib/auth";
import { invalidField, svcError } from "@svc/lib/errors";
import { ATTESTATIONS } from "../domain/build-report.js";
import { dueReports } from "../domain/due-reports.js";
import { ATTESTATION_SLOTS } from "../domain/report-types.js";
import { inSlotOrder, isSlot, retainUntil, signedCopy } from "../domain/sign-report.js";
import {
  deleteSignedReport,
  findSignedReport,
  insertSignedReport,
  latestCopyOf,
  listSignedReports,
  lockReport,
  recordAudit,
  uncoveredControlChanges,
  type SignedReportRow,
} from "../store/compliance.repository.js";
import type { ComplianceDatabase, StoredSignature } from "../store/compliance.table.js";
import {
  REPORT_SHA_HEADER,
  writeChecked,
  yearOf,
  type MakeReport,
} from "./validation-report-handlers.js";

type Handlers = Pick<
  ServiceImpl<typeof ComplianceService>,
  | "getDueValidationReports"
  | "signValidationReport"
  | "listSignedReports"
  | "getSignedReport"
  | "deleteSignedReport"
>;

const hrefOf = (id: string) => `/risk/validation-report/signed/${id}`;

function toProto(r: Omit<SignedReportRow, "report">): SignedReport {
  return create(SignedReportSchema, {
    id: r.id,
    scope: r.scope,
    bot: r.bot_slug ?? "",
    botId: r.bot_id ?? "",
    year: r.year,
    sha256: r.sha256,
    unsignedSha256: r.unsigned_sha256,
    signatures: r.signatures.map((s) => ({
      slot: s.slot,
      role: s.role,
      signedBy: s.signed_by,
      signedAt: timestampFromDate(new Date(s.signed_at)),
    })),
    signedAt: timestampFromDate(new Date(r.signed_at)),
    retainUntil: timestampFromDate(new Date(r.retain_until)),
    controlChanges: r.control_changes,
    href: hrefOf(r.id),
  });
}

const notFound = (id: string) =>
  svcError(Code.NotFound, "signed_report_not_found", `no signed report has id ${id}`, {
    report_id: id,
  });

/** The database's append-only guard refusing a write (insufficient_privilege). */
const isGuardRefusal = (err: unknown) =>
  (err as { code?: unknown } | undefined)?.code === "42501" ||
  ((err as { cause?: { code?: unknown } } | undefined)?.cause?.code ?? "") === "42501";

/**
 * Signed validation reports: a person fills an attestation slot of the report they read (step-up
 * MFA, in the proto), and the signed copy is stored append-only for seven years; the reports due
 * again after material control changes.
 */
export function createSignedReportHandlers(deps: {
  db: Kysely<ComplianceDatabase>;
  make: MakeReport;
  now?: () => Date;
}): Handlers {
  const { db, make } = deps;
  const now = deps.now ?? (() => new Date());

  /** A refusal is recorded (its own transaction: nothing else is written) before it is answered. */
  const refuse = async (
    origin: AuditOrigin,
    action: string,
    resource: string,
    details: JsonObject,
  ) =>
    db
      .transaction()
      .execute((trx) => recordAudit(trx, origin, { action, outcome: "denied", resource, details }));

  return {
    async getDueValidationReports() {
      const due = dueReports(await uncoveredControlChanges(db));
      return create(DueValidationReportsSchema, {
        items: due.map((d) => ({
          year: d.year,
          scope: d.scope,
          bot: d.bot,
          botId: d.botId,
          controlChanges: d.controlChanges,
          kinds: [...d.kinds].sort(),
          dueSince: timestampFromDate(d.dueSince),
        })),
      });
    },

    async signValidationReport(req, ctx) {
      if (!isSlot(req.slot))
        throw invalidField("slot", `slot must be one of ${ATTESTATION_SLOTS.join(", ")}`);
      const read = req.reportSha256.toLowerCase();
      if (!/^[0-9a-f]{64}$/.test(read))
        throw invalidField(
          "report_sha256",
          "report_sha256 must be the 64 hex digits of the X-Report-Sha256 header of the report you read",
        );
      const year = yearOf(req.year, now());
      const { report, bot } = await make(req.botRef === "" ? undefined : req.botRef, year);
      const unsigned = await writeChecked(report);
      const scope = bot ? ("bot" as const) : ("platform" as const);
      const what = bot ? `the ${year} report of bot ${bot.slug}` : `the ${year} platform report`;
      if (unsigned.sha256 !== read)
        throw svcError(
          Code.Aborted,
          "report_changed",
          `${what} is no longer the one you read: its records changed since (its SHA-256 is now ${unsigned.sha256}); read it again and sign that`,
          { report_sha256: read, current_sha256: unsigned.sha256 },
        );
      const origin = auditOriginOf(ctx);
      const by = principalOf(ctx).sub;
      const outcome = await db.transaction().execute(async (trx) => {
        // Signers of one report queue here, so each copy holds every signature before it; the
        // time is taken once through, so copies are stamped in the order they were made.
        await lockReport(trx, `${scope}/${bot?.id ?? ""}/${year}`);
        const signedAt = now();
        const latest = await latestCopyOf(trx, {
          scope,
          botId: bot?.id ?? null,
          year,
          unsignedSha256: unsigned.sha256,
        });
        const prior = latest?.signatures ?? [];
        const already = prior.find((s) => s.slot === req.slot);
        if (already) {
          await recordAudit(trx, origin, {
            action: "compliance.report.sign",
            outcome: "denied",
            resource: `signed_report/${latest!.id}`,
            details: { slot: req.slot, signed_by: already.signed_by, reason: "already signed" },
          });
          return { refused: { latest: latest!, already } };
        }
        // Each attestation is a different officer's: one person cannot fill two slots.
        const mine = prior.find((s) => s.signed_by === by);
        if (mine) {
          await recordAudit(trx, origin, {
            action: "compliance.report.sign",
            outcome: "denied",
            resource: `signed_report/${latest!.id}`,
            details: { slot: req.slot, signed_by: by, reason: `already signed ${mine.slot}` },
          });
          return { yours: mine };
        }
        const signature: StoredSignature = {
          slot: req.slot,
          role: ATTESTATIONS[req.slot as keyof typeof ATTESTATIONS].filled_by,
          signed_by: by,
          signed_at: signedAt.toISOString(),
          statement: req.statement,
        };
        const signatures = inSlotOrder([...prior, signature]);
        const signed = await writeChecked(signedCopy(report, signatures));
        const row = await insertSignedReport(trx, {
          id: randomUUID(),
          scope,
          bot_id: bot?.id ?? null,
          bot_slug: bot?.slug ?? null,
          year,
          report: signed.yaml,
          sha256: signed.sha256,
          unsigned_sha256: unsigned.sha256,
          signatures,
          slots: signatures.map((s) => s.slot).join(","),
          control_changes: report.evidence.control_changes.map((c) => c.id),
          signed_at: signedAt,
          retain_until: retainUntil(signedAt),
        });
        await recordAudit(trx, origin, {
          action: "compliance.report.signed",
          outcome: "succeeded",
          resource: `signed_report/${row.id}`,
          details: {
            scope,
            bot: bot?.slug ?? "",
            year,
            slot: req.slot,
            sha256: signed.sha256,
            unsigned_sha256: unsigned.sha256,
            retain_until: row.retain_until.toISOString(),
          },
        });
        return { row };
      });
      if ("yours" in outcome)
        throw svcError(
          Code.PermissionDenied,
          "four_eyes_violation",
          `you signed ${outcome.yours!.slot} of ${what} already: each attestation slot is signed by a different person`,
          { slot: req.slot, signed_slot: outcome.yours!.slot },
        );
      if ("refused" in outcome) {
        const { latest, already } = outcome.refused!;
        throw svcError(
          Code.AlreadyExists,
          "report_already_signed",
          `${req.slot} of ${what} was signed by ${already.signed_by} at ${already.signed_at} (stored report ${latest.id}); a signed report is never overwritten`,
          { slot: req.slot, report_id: latest.id, signed_by: already.signed_by },
        );
      }
      ctx.responseHeader.set(REPORT_SHA_HEADER, outcome.row.sha256);
      return toProto(outcome.row);
    },

    async listSignedReports(req) {
      const rows = await listSignedReports(db, {
        year: req.year,
        bot: req.botRef === "" ? undefined : req.botRef,
      });
      return create(SignedReportsSchema, { items: rows.map(toProto) });
    },

    async getSignedReport(req, ctx) {
      const row = await findSignedReport(db, req.reportId);
      if (!row) throw notFound(req.reportId);
      ctx.responseHeader.set(REPORT_SHA_HEADER, row.sha256);
      return create(ValidationReportSchema, { yaml: row.report });
    },

    async deleteSignedReport(req, ctx) {
      const origin = auditOriginOf(ctx);
      const resource = `signed_report/${req.reportId}`;
      const row = await findSignedReport(db, req.reportId);
      if (!row) throw notFound(req.reportId);
      const until = new Date(row.retain_until);
      const retained = () =>
        svcError(
          Code.FailedPrecondition,
          "evidence_retained",
          `signed report ${row.id} (${row.scope === "bot" ? `bot ${row.bot_slug}` : "platform"}, ${row.year}) is kept until ${until.toISOString()} (signed ${new Date(row.signed_at).toISOString()} + 7 years); it cannot be deleted before`,
          { report_id: row.id, retain_until: until.toISOString() },
        );
      const denied = { retain_until: until.toISOString(), sha256: row.sha256 };
      if (until > now()) {
        await refuse(origin, "compliance.report.delete", resource, denied);
        throw retained();
      }
      try {
        await db.transaction().execute(async (trx) => {
          await deleteSignedReport(trx, row.id);
          await recordAudit(trx, origin, {
            action: "compliance.report.delete",
            outcome: "succeeded",
            resource,
            details: { retain_until: until.toISOString(), sha256: row.sha256 },
          });
        });
      } catch (err) {
        // The database's clock is the one the guard reads: it has the last word.
        if (!isGuardRefusal(err)) throw err;
        await refuse(origin, "compliance.report.delete", resource, denied);
        throw retained();
      }
      return toProto(row);
    },
  };
}
