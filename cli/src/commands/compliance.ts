import type { Command } from "commander";
import { verifyAuditTrail } from "../audit-verify.js";
import { contextOf } from "../context.js";
import { CliExit, type Io } from "../io.js";
import { json } from "../output.js";
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
      const ctx = contextOf(cmd, io);
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
    .description("recompute the audit trail's hash chain; name the first broken row")
    .action(async (_o: unknown, cmd: Command) => {
      const ctx = contextOf(cmd, io);
      const v = await verifyAuditTrail(ctx.api.base, ctx.api.headers, ctx.api.options.timeoutMs);
      if (ctx.json) io.out(json(v));
      else if (v.broken)
        io.out(`audit trail BROKEN at seq ${v.broken.seq} (id ${v.broken.id}): ${v.broken.why}\n`);
      else
        io.out(`audit trail intact: ${v.rows} rows, head hash ${v.headHash ?? "(empty chain)"}\n`);
      if (v.broken) throw new CliExit(1);
    });
}
