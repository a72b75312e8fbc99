import type { Command } from "commander";
import { declareAt } from "../routes/declare.js";
import { contextOf } from "../context.js";
import { haltAll } from "../halt-all.js";
import { CliExit, type Io } from "../io.js";

export function registerHaltAll(program: Command, io: Io): void {
  program
    .command("halt-all")
    .description(
      "the platform switch: call every halt route in parallel (agents, quant agents, paper, bots, RL, workflows)",
    )
    .option("--reason <text>", "why (kept with each halt)", "operator halt-all")
    .option("-y, --yes", "do not ask for confirmation (needed when stdin is not a terminal)")
    .addHelpText("after", "\nExample:\n  svc halt-all --reason 'venue outage' --yes\n")
    .action(async (o: { reason: string; yes?: boolean }, cmd: Command) => {
      const ctx = await contextOf(cmd, io);
      if (!o.yes) {
        const what = `halt every running bot, agent, paper session, RL job and workflow on ${ctx.api.base}`;
        if (!io.stdinIsTTY)
          throw new CliExit(2, `halt-all would ${what}; stdin is not a terminal, so pass --yes`);
        const answer = await io.ask(`This will ${what}. Type yes to go on: `);
        if (!/^y(es)?$/i.test(answer.trim()))
          throw new CliExit(1, "halt-all not confirmed; nothing was halted");
      }
      const results = await haltAll(
        ctx.api.base,
        ctx.api.headers,
        o.reason,
        ctx.api.options.timeoutMs,
      );
      if (ctx.json)
        ctx.emit(results.map((r) => ({ route: r.route, status: r.status, body: r.body ?? null })));
      else
        for (const r of results)
          io.out(
            `${r.status === 200 ? "ok  " : "FAIL"} ${String(r.status).padEnd(3)} ${r.route.padEnd(20)} ${r.summary}\n`,
          );
      if (!results.every((r) => r.status === 200)) throw new CliExit(1);
    });
  declareAt(
    program,
    "halt-all",
    "POST /agents/halt",
    "POST /quant-agents/halt",
    "POST /paper/stop-all",
    "POST /bots/halt-all",
    "POST /rl/halt-all",
    "POST /workflows/halt",
  );
}
