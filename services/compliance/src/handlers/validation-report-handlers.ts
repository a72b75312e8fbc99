import { create } from "@bufbuild/protobuf";
import { timestampDate } from "@bufbuild/protobuf/wkt";
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
import type { BotEvidence, DrillEntry, ValidationReport } from "../domain/report-types.js";
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
function yearOf(asked: number | undefined, now: Date): number {
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

/** Writes the report, checks it against its own schema, and puts its hash in the headers. */
async function answer(
  report: ValidationReport,
  ctx: HandlerContext,
): Promise<ValidationReportMessage> {
  const errors = await reportSchemaErrors(report);
  // A bug, not a request to refuse: answer 500 rather than a report an auditor cannot rely on.
  if (errors.length > 0)
    throw new Error(`the generated report does not conform to its schema: ${errors.join("; ")}`);
  const { yaml, sha256 } = await writeReport(report);
  ctx.responseHeader.set(REPORT_SHA_HEADER, sha256);
  return create(ValidationReportSchema, { yaml });
}

/** Bots whose runs are asked for at once by the platform report. */
const RUNS_IN_FLIGHT = 16;

const createdYear = (b: Bot) => (b.createdAt ? timestampDate(b.createdAt).getUTCFullYear() : 0);

/**
 * The annual validation report (RTS 6 Art. 9, SEC 15c3-5 (e)) of one bot or of the platform.
 * It only reads: the bots and killswitch services are asked, nothing is written anywhere.
 */
export function createValidationReportHandlers(
  sources: ReportSources | undefined,
  now: () => Date = () => new Date(),
): Handlers {
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
  return {
    async getValidationReport(req, ctx) {
      if (req.botRef.includes("\0"))
        throw svcError(
          Code.InvalidArgument,
          "invalid_argument",
          "bot_ref must not contain a NUL byte",
          { field: "bot_ref" },
        );
      const year = yearOf(req.year, now());
      const s = need();
      const bot = await s.bot(req.botRef);
      if (year < createdYear(bot))
        throw badYear(
          `year=${year} is before bot ${bot.slug} existed (created ${createdYear(bot)})`,
          year,
        );
      const [runs, drills] = await Promise.all([s.runs(bot.id, year), drillsOf(s, year)]);
      const report = buildReport({ kind: "bot", year }, [evidenceOf(bot, runs, drills)], drills);
      return answer(report, ctx);
    },
    async getPlatformValidationReport(req, ctx) {
      const year = yearOf(req.year, now());
      const s = need();
      const [bots, drills] = await Promise.all([s.allBots(), drillsOf(s, year)]);
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
      return answer(buildReport({ kind: "platform", year }, evidence, drills), ctx);
    },
  };
}
