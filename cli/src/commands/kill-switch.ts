import type { Command } from "commander";
import { routeCommand } from "../route-command.js";
import { declareAt } from "../routes/declare.js";
import { contextOf, type Ctx } from "../context.js";
import { CliExit, type Io } from "../io.js";
import { fields, table, when } from "../output.js";
import type { KillSwitch } from "../wire.js";

interface EngageOptions {
  scope: string;
  target?: string;
  mode: string;
  reason?: string;
  ttl?: string;
  rescope?: boolean;
}

interface KillSwitchList {
  items: KillSwitch[];
  key_store_unreachable: boolean;
}

export function registerKillSwitch(program: Command, io: Io): void {
  const ks = program
    .command("kill-switch")
    .description("engage, release and list kill switches (bot, fleet or platform scope)");

  ks.command("engage")
    .description("engage (or change) a named kill switch")
    .argument("<name>", "the switch's name (lower case, digits, - and .)")
    .requiredOption("--scope <scope>", "bot, fleet or platform")
    .option("--target <target>", "a bot slug, a fleet name; platform for the platform scope")
    .option("--mode <mode>", "freeze, cancel or flatten", "cancel")
    .option("--reason <text>", "why (kept in the audit trail)")
    .option("--ttl <duration>", "release by itself after this long (4h, 30m, 90s)")
    .option(
      "--rescope",
      "move a switch of this name to another scope or target, releasing its old one (refused without it)",
    )
    .addHelpText(
      "after",
      "\nExample:\n  svc kill-switch engage majors-stop --scope fleet --target majors --mode cancel --reason 'venue outage'\n",
    )
    .action(async (name: string, o: EngageOptions, cmd: Command) => {
      const ctx = await contextOf(cmd, io);
      const target = o.target ?? (o.scope === "platform" ? "platform" : undefined);
      if (!target) throw new CliExit(2, `--target is needed for the ${o.scope} scope`);
      const spec = {
        scope: o.scope,
        target,
        mode: o.mode,
        ...(o.reason ? { reason: o.reason } : {}),
        ...(o.ttl ? { ttl: o.ttl } : {}),
      };
      const k = await ctx.api.put<KillSwitch>(
        `/kill-switches/${encodeURIComponent(name)}${o.rescope ? "?rescope=true" : ""}`,
        spec,
      );
      ctx.show(k, () =>
        fields([
          ["kill switch", k.metadata.name],
          ["engaged", k.status.engaged ? "yes" : "no"],
          ["scope", `${k.spec.scope} ${k.spec.target}`],
          ["mode", k.spec.mode],
          ["reason", k.spec.reason],
          ["by", k.status.engaged_by],
          ["key", k.status.key_state],
        ]),
      );
    });

  ks.command("release")
    .description("release a named kill switch (others on the same target stay engaged)")
    .argument("<name>", "the switch's name")
    .option("--reason <text>", "why (kept in the audit trail)")
    .action(async (name: string, o: { reason?: string }, cmd: Command) => {
      const ctx = await contextOf(cmd, io);
      const why = o.reason ? `?reason=${encodeURIComponent(o.reason)}` : "";
      const answer = await ctx.api.delete<{ name: string; released: boolean }>(
        `/kill-switches/${encodeURIComponent(name)}${why}`,
      );
      ctx.show(
        answer,
        () => `${answer.name} ${answer.released ? "released" : "was not engaged"}\n`,
      );
    });

  ks.command("list")
    .description("kill switches and whether each is engaged")
    .action(async (_o: unknown, cmd: Command) => listKillSwitches(await contextOf(cmd, io)));

  // The name of the first CLI, kept for scripts that use it.
  program
    .command("kill-switches", { hidden: true })
    .action(async (_o: unknown, cmd: Command) => listKillSwitches(await contextOf(cmd, io)));
  declareAt(program, "kill-switch engage", "PUT /kill-switches/{name}");
  declareAt(program, "kill-switch release", "DELETE /kill-switches/{name}");
  declareAt(program, "kill-switch list", "GET /kill-switches");
  routeCommand(
    ks,
    {
      name: "show",
      summary: "one kill switch: scope, target, mode, whether it is engaged and its key",
      route: "GET /kill-switches/{name}",
      keys: [
        "metadata.name",
        "spec.scope",
        "spec.target",
        "spec.mode",
        "spec.reason",
        "spec.ttl",
        "status",
      ],
    },
    io,
  );
}

async function listKillSwitches(ctx: Ctx): Promise<void> {
  const answer = await ctx.api.all<KillSwitchList>("/kill-switches");
  ctx.show(answer, () => {
    const warning = answer.key_store_unreachable
      ? "warning: the key-value store does not answer; key states are unknown\n"
      : "";
    if (answer.items.length === 0) return `${warning}no kill switches\n`;
    return (
      warning +
      table(
        ["NAME", "SCOPE", "TARGET", "MODE", "ENGAGED", "BY", "SINCE", "KEY", "REASON"],
        answer.items.map((k) => [
          k.metadata.name,
          k.spec.scope,
          k.spec.target,
          k.spec.mode,
          k.status.engaged ? "yes" : "no",
          k.status.engaged_by,
          when(k.status.engaged_at),
          k.status.key_state,
          k.spec.reason,
        ]),
      )
    );
  });
}
