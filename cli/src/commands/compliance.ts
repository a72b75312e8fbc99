import type { Command } from "commander";
import { routeCommand } from "../route-command.js";
import { declareAt } from "../routes/declare.js";
import { verifyAuditTrail } from "../audit-verify.js";
import { contextOf } from "../context.js";
import { CliExit, type Io } from "../io.js";
import { fetchReport } from "../report.js";

export function registerCompliance(program: Command, io: Io): void {
  program
    .command("report")
    .description("the annual validation report (YAML) of a bot, or of the platform without one")
    .argument("[bot]", "slug or id")
    .option("--year <yyyy>", "the calendar year (default: this one)")
    .addHelpText(
      "after",
      "\nThe YAML alone goes to stdout, byte for byte; its SHA-256 to stderr.\n\nExample:\n  svc report alpha-ma --year 2026 > alpha-ma-2026.yaml\n",
    )
    .action(async (bot: string | undefined, o: { year?: string }, cmd: Command) => {
      const ctx = await contextOf(cmd, io);
      const r = await fetchReport(
        ctx.api.base,
        ctx.api.headers,
        { bot, year: o.year },
        ctx.api.options.timeoutMs,
      );
      if (!r.ok) throw new CliExit(1, `report refused: ${r.status} ${r.body}`);
      // The YAML alone on stdout, so `svc report > r.yaml` hashes to the served hash.
      io.out(r.body);
      io.err(`sha256 ${r.sha256}\n`);
    });

  const audit = program.command("audit").description("the audit trail");
  audit
    .command("verify")
    .description(
      "recompute the audit trail's hash chain and check it against the signed checkpoints; name the first bad seq",
    )
    .option(
      "--checkpoint-key-id <ids>",
      "trust only checkpoints signed by these key ids (comma-separated RFC 7638 ids, from the identity service's start-up log)",
    )
    .addHelpText(
      "after",
      "\nExit 1 when the trail does not hold; docs/audit.md says what to do then.\n",
    )
    .action(async (o: { checkpointKeyId?: string }, cmd: Command) => {
      const ctx = await contextOf(cmd, io);
      const pinned = (o.checkpointKeyId ?? "")
        .split(",")
        .map((k) => k.trim())
        .filter(Boolean);
      const v = await verifyAuditTrail(
        ctx.api.base,
        ctx.api.headers,
        ctx.api.options.timeoutMs,
        pinned,
      );
      if (ctx.json) ctx.emit(v);
      else if (v.broken)
        io.out(
          `audit trail BROKEN at seq ${v.broken.seq}${v.broken.id ? ` (id ${v.broken.id})` : ""}: ${v.broken.problem}: ${v.broken.why}\n`,
        );
      else
        io.out(
          `audit trail intact: ${v.rows} rows, head hash ${v.headHash ?? "(empty chain)"}, anchored through seq ${v.anchoredSeq} by ${v.checkpoints} signed checkpoints (${v.checkpointStore})\n`,
        );
      if (v.broken) throw new CliExit(1);
    });
  declareAt(
    program,
    "report",
    "GET /bots/{bot_ref}/risk/validation-report",
    "GET /risk/validation-report",
  );
  registerSignedReports(program, io);
  declareAt(program, "audit verify", "GET /admin/audit-events", "GET /admin/audit-checkpoints");
  routeCommand(
    audit,
    {
      name: "check",
      summary: "the server's own check of the audit trail (svc audit verify checks it here)",
      route: "GET /admin/audit-trail/verify",
    },
    io,
  );
  routeCommand(
    audit,
    {
      name: "checkpoint",
      summary: "sign a checkpoint of the audit trail's head now (they are also signed on a timer)",
      route: "POST /admin/audit-checkpoints",
    },
    io,
  );
}

/** Reports due after control changes, signing one, and the signed reports kept for seven years. */
function registerSignedReports(program: Command, io: Io): void {
  const reports = program
    .command("reports")
    .description("validation reports due after control changes, signing, and signed reports kept");
  routeCommand(
    reports,
    {
      name: "due",
      summary: "the reports a control change made due, with the changes no signed report covers",
      route: "GET /risk/validation-report/due",
    },
    io,
  );
  routeCommand(
    reports,
    {
      name: "sign",
      summary:
        "sign an attestation slot of the report you read (its SHA-256 from `svc report`); needs step-up",
      route: "POST /risk/validation-report/signatures",
      body: [
        { flag: "--bot", field: "bot_ref", help: "the bot (the platform's report without one)" },
        { flag: "--year", field: "year", help: "the calendar year", type: "number" },
        { flag: "--slot", field: "slot", help: "the attestation slot", required: true },
        { flag: "--statement", field: "statement", help: "what you attest", required: true },
        {
          flag: "--report-sha256",
          field: "report_sha256",
          help: "the SHA-256 of the report you read",
          required: true,
        },
      ],
    },
    io,
  );
  const signed = reports.command("signed").description("signed reports, kept for seven years");
  routeCommand(
    signed,
    {
      name: "list",
      summary: "the signed reports kept, with their digests and retention dates",
      route: "GET /risk/validation-report/signed",
      query: [
        ["--year", "year", "only this year's"],
        ["--bot", "bot_ref", "only this bot's"],
      ],
    },
    io,
  );
  signed
    .command("show")
    .description("a signed report (YAML) as it was stored, byte for byte; its SHA-256 to stderr")
    .argument("<report>", "the signed report's id")
    .action(async (id: string, _o: unknown, cmd: Command) => {
      const ctx = await contextOf(cmd, io);
      const r = await fetchReport(
        ctx.api.base,
        ctx.api.headers,
        { signedId: id },
        ctx.api.options.timeoutMs,
      );
      if (!r.ok) throw new CliExit(1, `report refused: ${r.status} ${r.body}`);
      io.out(r.body);
      io.err(`sha256 ${r.sha256}\n`);
    });
  declareAt(signed, "show", "GET /risk/validation-report/signed/{report_id}");
  routeCommand(
    signed,
    {
      name: "delete",
      summary: "delete a signed report past its retention date (refused before it); needs step-up",
      route: "DELETE /risk/validation-report/signed/{report_id}",
      args: [["report", "the signed report's id"]],
    },
    io,
  );
}
