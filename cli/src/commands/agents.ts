import type { Command } from "commander";
import { routeCommand } from "../route-command.js";
import { declareAt } from "../routes/declare.js";
import { contextOf } from "../context.js";
import { CliExit, type Io } from "../io.js";
import { table } from "../output.js";

/** The agent switches: halts stay engaged (halt-all engages both) until released here. */
const SWITCHES = {
  agents: "/agents/halt",
  "quant-agents": "/quant-agents/halt",
} as const;

interface Released {
  key: string;
  released: boolean;
}

export function registerAgents(program: Command, io: Io): void {
  const agents = program
    .command("agents")
    .description("the agent switches that stop research chats (halt-all engages both)");

  agents
    .command("release")
    .description(
      "release the agent switches, so research chats may start again (both unless --only)",
    )
    .option("--only <switch>", "agents (every chat) or quant-agents (research bots' chats)")
    .option("--reason <text>", "why (kept in the audit trail)", "released by an operator")
    .addHelpText("after", "\nExample:\n  svc agents release --reason 'incident over'\n")
    .action(async (o: { only?: string; reason: string }, cmd: Command) => {
      const ctx = await contextOf(cmd, io);
      if (o.only && !(o.only in SWITCHES))
        throw new CliExit(2, `--only takes agents or quant-agents, not ${JSON.stringify(o.only)}`);
      const names = (o.only ? [o.only] : Object.keys(SWITCHES)) as (keyof typeof SWITCHES)[];
      const query = `?reason=${encodeURIComponent(o.reason)}`;
      const answers: (Released & { switch: string })[] = [];
      for (const name of names)
        answers.push({
          switch: name,
          ...(await ctx.api.delete<Released>(`${SWITCHES[name]}${query}`)),
        });
      ctx.show(answers, () =>
        table(
          ["SWITCH", "KEY", "RELEASED"],
          answers.map((a) => [a.switch, a.key, a.released ? "yes" : "no (was not engaged)"]),
        ),
      );
    });
  declareAt(program, "agents release", "DELETE /agents/halt", "DELETE /quant-agents/halt");
  routeCommand(
    agents,
    {
      name: "status",
      summary: "whether each agent switch is engaged, by whom and why",
      route: "GET /agents/halt",
    },
    io,
  );
}
