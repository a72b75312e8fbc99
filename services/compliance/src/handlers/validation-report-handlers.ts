import { create } from "@bufbuild/protobuf";
import { timestampDate } from "@bufbuild/protobuf/wkt";
import type { Kysely } from "kysely";
import { Code, type HandlerContext, type ServiceImpl } from "@connectrpc/connect";
import { ComplianceRunKind, type Bot, type ComplianceRun } from "@svc/gen/svc/bots/v1/bots_pb.js";
import type { DrillResult } from "@svc/gen/svc/killswitch/v1/killswitch_pb.js";
import {
  ComplianceService,
  ValidationReportSchema,
  type ValidationReport as ValidationReportMessage,
} from "@svc/gen/svc/compliance/v1/compliance_pb.js";
import { svcError } from "@svc/lib/errors";
import {
  conformanceEntry,
  drillEntry,
  inventoryEntry,
  stressEntry,
} from "../clients/report-mapping.js";
import type { ReportSources } from "../clients/report-sources.js";
import { buildReport } from "../domain/build-report.js";
import type {
  BotEvidence,
  ControlChangeEntry,
  DrillEntry,
  ValidationReport,
} from "../domain/report-types.js";
import { controlChangesBetween, type ControlChangeRow } from "../store/compliance.repository.js";
import type { ComplianceDatabase } from "../store/compliance.table.js";
import { reportSchemaErrors } from "../report/validate-report.js";
import { writeReport } from "../report/write-report.js";

type Handlers = Pick<
  ServiceImpl<typeof ComplianceService>,
  "getValidationReport" | "getPlatformValidationReport"
>;

/** The header that carries the SHA-256 of the YAML body (passed back by the gateway). */
export const REPORT_SHA_HEADER = "x-report-sha256";

const badYear = (message: string, year: number) =>
  svcError(Code.InvalidArgument, "invalid_parameter", message, { field: "year", year });

/** The first year a report covers. */
const FIRST_REPORT_YEAR = 2000;

/** The year asked for, or the previous calendar year (UTC); never one that has not begun. */
export function yearOf(asked: number | undefined, now: Date): number {
  const current = now.getUTCFullYear();
  const year = asked ?? current - 1;
  // Both bounds here, in one message: the ceiling moves with the clock, so no proto rule holds it.
  if (year < FIRST_REPORT_YEAR || year > current)
    throw svcError(
      Code.InvalidArgument,
      "invalid_parameter",
      `year=${year} is ${year > current ? "in the future" : "too early"}: a report covers a year from ${FIRST_REPORT_YEAR} to ${current} (the current year, UTC); leave year out for ${current - 1}`,
      { field: "year", year, min: FIRST_REPORT_YEAR, max: current },
    );
  return year;
}

function evidenceOf(bot: Bot, runs: ComplianceRun[], drills: DrillEntry[]): BotEvidence {
  return {
    bot: inventoryEntry(bot),
    conformance: runs.filter((r) => r.kind === ComplianceRunKind.CONFORMANCE).map(conformanceEntry),
    stress: runs.filter((r) => r.kind === ComplianceRunKind.STRESS).map(stressEntry),
    drills,
  };
}

/** Checks the report against its own schema and writes it: its YAML and that YAML's SHA-256. */
export async function writeChecked(
  report: ValidationReport,
): Promise<{ yaml: string; sha256: string }> {
  const errors = await reportSchemaErrors(report);
  // A bug, not a request to refuse: answer 500 rather than a report an auditor cannot rely on.
  if (errors.length > 0)
    throw new Error(`the report does not conform to its schema: ${errors.join("; ")}`);
  return writeReport(report);
}

/** Writes the report, checks it against its own schema, and puts its hash in the headers. */
async function answer(
  report: ValidationReport,
  ctx: HandlerContext,
): Promise<ValidationReportMessage> {
  const { yaml, sha256 } = await writeChecked(report);
  ctx.responseHeader.set(REPORT_SHA_HEADER, sha256);
  return create(ValidationReportSchema, { yaml });
}

/** A stored control change as the report lists it. */
export function controlChangeEntry(r: ControlChangeRow): ControlChangeEntry {
  return {
    id: r.id,
    kind: r.kind as ControlChangeEntry["kind"],
    bot_id: r.bot_id,
    bot_slug: r.bot_slug,
    fleet: r.fleet,
    version: r.version,
    previous_version: r.previous_version,
    actor: r.actor,
    changed_at: new Date(r.changed_at).toISOString(),
    before: r.before as ControlChangeEntry["before"],
    after: r.after as ControlChangeEntry["after"],
  };
}

/** Bots whose runs are asked for at once by the platform report. */
const RUNS_IN_FLIGHT = 16;

const createdYear = (b: Bot) => (b.createdAt ? timestampDate(b.createdAt).getUTCFullYear() : 0);

/** A report made: the document, and (a bot's report) the bot it is of. */
export interface MadeReport {
  report: ValidationReport;
  bot?: Bot;
}

/** Makes the report of one bot (botRef) or of the platform (botRef undefined) for a year. */
export type MakeReport = (botRef: string | undefined, year: number) => Promise<MadeReport>;

/**
 * The annual validation report (RTS 6 Art. 9, SEC 15c3-5 (e)) of one bot or of the platform.
 * It only reads: the bots and killswitch services are asked, and the control changes this
 * service recorded; nothing is written anywhere.
 */
export function reportMaker(
  sources: ReportSources | undefined,
  db: Kysely<ComplianceDatabase>,
): MakeReport {
  const need = (): ReportSources => {
    if (sources) return sources;
    throw svcError(
      Code.Unavailable,
      "bots_unreachable",
      "the compliance service has no way to the bots and killswitch services here (SVC_BOTS_URL, SVC_KILLSWITCH_URL); no report can be made",
      {},
      { headers: { "retry-after": "60" } },
    );
  };
  const drillsOf = async (s: ReportSources, year: number) =>
    (await s.drills(year)).map((d: DrillResult) => drillEntry(d));
  const changesOf = async (year: number) =>
    (
      await controlChangesBetween(
        db,
        new Date(Date.UTC(year, 0, 1)),
        new Date(Date.UTC(year + 1, 0, 1)),
      )
    ).map(controlChangeEntry);
  return async (botRef, year) => {
    const s = need();
    if (botRef !== undefined) {
      if (botRef.includes("\0"))
        throw svcError(
          Code.InvalidArgument,
          "invalid_argument",
          "bot_ref must not contain a NUL byte",
          { field: "bot_ref" },
        );
      const bot = await s.bot(botRef);
      if (year < createdYear(bot))
        throw badYear(
          `year=${year} is before bot ${bot.slug} existed (created ${createdYear(bot)})`,
          year,
        );
      const [runs, drills, changes] = await Promise.all([
        s.runs(bot.id, year),
        drillsOf(s, year),
        changesOf(year),
      ]);
      const evidence = [evidenceOf(bot, runs, drills)];
      return { report: buildReport({ kind: "bot", year }, evidence, drills, changes), bot };
    }
    const [bots, drills, changes] = await Promise.all([
      s.allBots(),
      drillsOf(s, year),
      changesOf(year),
    ]);
    // A bot created after the year has no place in it.
    const existing = bots.filter((b) => createdYear(b) <= year);
    const evidence: BotEvidence[] = [];
    for (let i = 0; i < existing.length; i += RUNS_IN_FLIGHT)
      evidence.push(
        ...(await Promise.all(
          existing
            .slice(i, i + RUNS_IN_FLIGHT)
            .map(async (bot) => evidenceOf(bot, await s.runs(bot.id, year), drills)),
        )),
      );
    return { report: buildReport({ kind: "platform", year }, evidence, drills, changes) };
  };
}

/** GET /bots/{bot_ref}/risk/validation-report and GET /risk/validation-report. */
export function createValidationReportHandlers(
  make: MakeReport,
  now: () => Date = () => new Date(),
): Handlers {
  return {
    async getValidationReport(req, ctx) {
      if (req.botRef.includes("\0"))
        throw svcError(
          Code.InvalidArgument,
          "invalid_argument",
          "bot_ref must not contain a NUL byte",
          { field: "bot_ref" },
        );
      const { report } = await make(req.botRef, yearOf(req.year, now()));
      return answer(report, ctx);
    },
    async getPlatformValidationReport(req, ctx) {
      const { report } = await make(undefined, yearOf(req.year, now()));
      return answer(report, ctx);
    },
  };
}
