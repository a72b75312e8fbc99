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
