import type { Command } from "commander";
import { declareAt } from "../routes/declare.js";
import { contextOf } from "../context.js";
import { CliExit, type Io } from "../io.js";
import { fields } from "../output.js";
import { objectFields, rowsTable } from "../render.js";
import { routeCommand } from "../route-command.js";
import { declareRoutes } from "../routes/declare.js";
import { watchUntil, withWatch } from "../watch.js";
import type { Deployment, Items, PromotionRequest } from "../wire.js";

interface StartOptions {
  approvedPromotion?: string;
  request?: string;
  speed?: string;
  dataSource?: string;
}

export function registerPaper(program: Command, io: Io): void {
  const paper = program
    .command("paper")
    .description("start, stop, list and watch paper-trading sessions");

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
      const ctx = await contextOf(cmd, io);
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
      const ctx = await contextOf(cmd, io);
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
  declareAt(
    program,
    "paper start",
    "POST /bots/{bot_ref}/paper/start",
    "GET /promotion/requests/{request_id}",
  );
  declareAt(
    program,
    "paper stop",
    "POST /bots/{bot_ref}/paper/stop/{task_id}",
    "GET /bots/{bot_ref}/deployments",
  );
  registerPaperReads(paper, io);
}

/** A paper session that runs, or is parked and may resume: not yet ended. */
const live = (d: Deployment) => d.target === "paper" && (d.status === "running" || d.parked);

/** list (every running session), status (one bot's, --watch), events (its event history). */
function registerPaperReads(paper: Command, io: Io): void {
  const list = paper
    .command("list")
    .description("every bot with a running paper session, and its sessions")
    .action(async (_o: unknown, cmd: Command) => {
      const ctx = await contextOf(cmd, io);
      const answer = await ctx.api.all<Items<RunningBot>>("/paper/running-bots");
      ctx.show(answer, () =>
        rowsTable(
          answer.items.flatMap((b) => b.sessions.map((s) => ({ slug: b.slug, ...s }))),
          ["slug", "task_id", "version", "timeframe", "high_frequency"],
        ),
      );
    });
  declareRoutes(list, "GET /paper/running-bots");

  const status = paper
    .command("status")
    .description("a bot's paper session: its status and its state (positions, exposures, metrics)")
    .argument("<bot>", "slug or id")
    .argument("[task-id]", "the session's task id (default: the live one, else the latest)")
    .addHelpText("after", "\nExample:\n  svc paper status alpha-ma --watch --interval 2000\n");
  withWatch(status, "the session ends (success, failed or halted)", "2000");
  status.action(
    async (
      bot: string,
      taskId: string | undefined,
      o: { watch?: boolean; interval?: string },
      cmd: Command,
    ) => {
      const ctx = await contextOf(cmd, io);
      const ref = encodeURIComponent(bot);
      const read = async (): Promise<PaperStatus> => {
        const sessions = (
          await ctx.api.all<Items<Deployment>>(`/bots/${ref}/deployments`)
        ).items.filter((d) => d.target === "paper");
        const session = taskId
          ? sessions.find((d) => d.task_id === taskId || d.id === taskId)
          : (sessions.find(live) ?? sessions[0]);
        if (!session)
          throw new CliExit(
            1,
            `${bot} has ${taskId ? `no paper session ${taskId}` : "no paper session"}`,
          );
        const state = await ctx.api.get<Record<string, unknown>>(`/bots/${ref}/state/snapshot`);
        return { session, state };
      };
      const answer = await watchUntil(
        ctx,
        o,
        read,
        (a) => !live(a.session),
        (a) =>
          `${a.session.task_id} ${a.session.status}${a.session.parked ? " (parked)" : ""}  seq ${String(a.state.seq ?? 0)}`,
      );
      ctx.show(answer, () =>
        objectFields({
          session: answer.session.task_id,
          status: answer.session.status + (answer.session.parked ? " (parked)" : ""),
          version: answer.session.version,
          deployment: answer.session.id,
          updated: answer.session.updated_at,
          seq: answer.state.seq,
          positions: answer.state.positions,
          exposures: answer.state.exposures,
          metrics: answer.state.metrics,
        }),
      );
    },
  );
  declareRoutes(status, "GET /bots/{bot_ref}/deployments", "GET /bots/{bot_ref}/state/snapshot");

  routeCommand(
    paper,
    {
      name: "events",
      summary: "a bot's state events (fills, orders, risk, metrics), oldest first",
      route: "GET /bots/{bot_ref}/state/events",
      args: [["bot", "slug or id"]],
      query: [
        ["--after-seq", "after_seq", "only events after this seq"],
        ["--limit", "limit", "at most this many (1 to 1000)"],
      ],
      columns: ["seq", "type", "occurred_at", "data"],
    },
    io,
  );
}

interface RunningBot {
  bot_id: string;
  slug: string;
  sessions: Array<{ task_id: string; version: number; high_frequency: boolean; timeframe: string }>;
}

interface PaperStatus {
  session: Deployment;
  state: Record<string, unknown>;
}
