import type { Command } from "commander";
import { contextOf } from "../context.js";
import { CliExit, type Io } from "../io.js";
import { fields } from "../output.js";
import type { Deployment, Items, PromotionRequest } from "../wire.js";

interface StartOptions {
  approvedPromotion?: string;
  request?: string;
  speed?: string;
  dataSource?: string;
}

export function registerPaper(program: Command, io: Io): void {
  const paper = program.command("paper").description("start and stop paper-trading sessions");

  paper
    .command("start")
    .description("start a paper session of an approved bot version")
    .argument("<bot>", "slug or id")
    .option("--request <id>", "the approved promotion request (its token is looked up)")
    .option("--approved-promotion <token>", "the ApprovedPromotion token itself")
    .option("--speed <n>", "bars per second of the replay")
    .option("--data-source <source>", "csv:NAME or synthetic:SEED")
    .addHelpText("after", "\nExample:\n  svc paper start alpha-ma --request alpha-1 --speed 5\n")
    .action(async (bot: string, o: StartOptions, cmd: Command) => {
      const ctx = contextOf(cmd, io);
      let token = o.approvedPromotion;
      if (!token && o.request) {
        const request = await ctx.api.get<PromotionRequest>(
          `/promotion/requests/${encodeURIComponent(o.request)}`,
        );
        token = request.approved_promotion;
        if (!token)
          throw new CliExit(
            1,
            `promotion request ${o.request} is ${request.status} and shows no token to you (it needs an approval, and run:bots to read it)`,
          );
      }
      if (!token)
        throw new CliExit(2, "paper start needs --request ID or --approved-promotion TOKEN");
      const body: Record<string, unknown> = { approved_promotion: token };
      if (o.speed) body.speed = Number(o.speed);
      if (o.dataSource) body.data_source = o.dataSource;
      const d = await ctx.api.post<Deployment>(
        `/bots/${encodeURIComponent(bot)}/paper/start`,
        body,
      );
      ctx.show(d, () => `paper session ${d.task_id} ${d.status} (deployment ${d.id})\n`);
    });

  paper
    .command("stop")
    .description("stop a paper session (by default the bot's one running session)")
    .argument("<bot>", "slug or id")
    .argument("[task-id]", "the session's task id, when the bot runs more than one")
    .action(async (bot: string, taskId: string | undefined, _o: unknown, cmd: Command) => {
      const ctx = contextOf(cmd, io);
      const ref = encodeURIComponent(bot);
      let task = taskId;
      if (!task) {
        const live = (
          await ctx.api.all<Items<Deployment>>(`/bots/${ref}/deployments`)
        ).items.filter((d) => d.target === "paper" && (d.status === "running" || d.parked));
        if (live.length === 0) throw new CliExit(1, `${bot} has no running paper session`);
        if (live.length > 1)
          throw new CliExit(
            2,
            `${bot} runs ${live.length} paper sessions (${live.map((d) => d.task_id).join(", ")}); name one`,
          );
        task = live[0]!.task_id;
      }
      const d = await ctx.api.post<Deployment>(
        `/bots/${ref}/paper/stop/${encodeURIComponent(task)}`,
      );
      ctx.show(d, () =>
        fields([
          ["session", d.task_id],
          ["status", d.status],
        ]),
      );
    });
}
