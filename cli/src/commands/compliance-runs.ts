import type { Command } from "commander";
import { contextOf, type Ctx } from "../context.js";
import type { Io } from "../io.js";
import { objectFields, rowsTable } from "../render.js";
import { declareRoutes } from "../routes/declare.js";
import { watchUntil, withWatch } from "../watch.js";
import type { Items } from "../wire.js";

interface Run {
  id: string;
  status: string;
  passed: boolean;
  [key: string]: unknown;
}

/** A run that changes no more: completed or failed. */
const runEnded = (r: Run) => /completed|failed/i.test(String(r.status ?? ""));

const RUN_KEYS = [
  "id",
  "bot_slug",
  "kind",
  "article",
  "status",
  "passed",
  "version",
  "version_hash",
  "task_id",
  "progress",
  "error",
  "requested_by",
  "created_at",
  "started_at",
  "finished_at",
  "stress",
];

function runText(r: Run): string {
  const head = objectFields(r, RUN_KEYS);
  const cases = Array.isArray(r.cases) ? (r.cases as unknown[]) : [];
  if (cases.length === 0) return head;
  return `${head}\n${rowsTable(cases, ["name", "article", "passed", "expected", "observed"])}`;
}

const runPath = (bot: string, id: string) =>
  `/bots/${encodeURIComponent(bot)}/compliance-runs/${encodeURIComponent(id)}`;

/** Starts a run, then with --watch follows it through GET .../compliance-runs/{id}. */
async function startAndWatch(
  ctx: Ctx,
  bot: string,
  route: string,
  body: Record<string, unknown>,
  o: { watch?: boolean; interval?: string },
): Promise<void> {
  const started = await ctx.api.post<{ run_id: string; status: string }>(route, body);
  if (!o.watch) {
    ctx.show(started, () =>
      objectFields(started, ["run_id", "article", "status", "task_id", "version"]).concat(
        `next: svc compliance-runs show ${bot} ${started.run_id} --watch\n`,
      ),
    );
    return;
  }
  const r = await watchUntil(
    ctx,
    o,
    () => ctx.api.get<Run>(runPath(bot, started.run_id)),
    runEnded,
    (r) => `run ${r.id} ${r.status}`,
  );
  ctx.show(r, () => runText(r));
}

export function registerComplianceRuns(program: Command, io: Io): void {
  const conformance = program
    .command("conformance")
    .description("start an RTS 6 conformance run of a bot (--watch follows it)")
    .argument("<bot>", "slug or id");
  withWatch(conformance, "the run completes or fails", "1000");
  conformance
    .addHelpText("after", "\nExample:\n  svc conformance alpha-ma --watch\n")
    .action(async (bot: string, o: { watch?: boolean; interval?: string }, cmd: Command) => {
      const ctx = await contextOf(cmd, io);
      await startAndWatch(ctx, bot, `/bots/${encodeURIComponent(bot)}/conformance`, {}, o);
    });
  declareRoutes(
    conformance,
    "POST /bots/{bot_ref}/conformance",
    "GET /bots/{bot_ref}/compliance-runs/{run_id}",
  );

  const stress = program
    .command("stress")
    .description("start an RTS 6 stress run of a bot (--watch follows it)")
    .argument("<bot>", "slug or id")
    .option("--peak-multiple <n>", "the load as a multiple of the bot's observed peak (1 to 100)");
  withWatch(stress, "the run completes or fails", "1000");
  stress
    .addHelpText("after", "\nExample:\n  svc stress alpha-ma --peak-multiple 2 --watch\n")
    .action(
      async (
        bot: string,
        o: { peakMultiple?: string; watch?: boolean; interval?: string },
        cmd: Command,
      ) => {
        const ctx = await contextOf(cmd, io);
        const body = o.peakMultiple ? { peak_multiple: Number(o.peakMultiple) } : {};
        await startAndWatch(ctx, bot, `/bots/${encodeURIComponent(bot)}/stress`, body, o);
      },
    );
  declareRoutes(
    stress,
    "POST /bots/{bot_ref}/stress",
    "GET /bots/{bot_ref}/compliance-runs/{run_id}",
  );

  const runs = program
    .command("compliance-runs")
    .description("a bot's conformance and stress runs: list, show (--watch)");
  const list = runs
    .command("list")
    .description("a bot's conformance and stress runs, newest first (every page)")
    .argument("<bot>", "slug or id")
    .option("--kind <kind>", "conformance or stress")
    .option("--year <yyyy>", "only runs of that year")
    .action(async (bot: string, o: { kind?: string; year?: string }, cmd: Command) => {
      const ctx = await contextOf(cmd, io);
      const q = new URLSearchParams({
        ...(o.kind ? { kind: o.kind } : {}),
        ...(o.year ? { year: o.year } : {}),
      }).toString();
      const answer = await ctx.api.all<Items<Run>>(
        `/bots/${encodeURIComponent(bot)}/compliance-runs${q ? `?${q}` : ""}`,
      );
      ctx.show(answer, () =>
        rowsTable(answer.items, ["id", "kind", "status", "passed", "version", "created_at"]),
      );
    });
  declareRoutes(list, "GET /bots/{bot_ref}/compliance-runs");

  const show = runs
    .command("show")
    .description("one run: its status, progress and each case's verdict")
    .argument("<bot>", "slug or id")
    .argument("<run>", "the run's id");
  withWatch(show, "the run completes or fails", "1000");
  show.action(
    async (bot: string, id: string, o: { watch?: boolean; interval?: string }, cmd: Command) => {
      const ctx = await contextOf(cmd, io);
      const r = await watchUntil(
        ctx,
        o,
        () => ctx.api.get<Run>(runPath(bot, id)),
        runEnded,
        (r) => `run ${r.id} ${r.status}`,
      );
      ctx.show(r, () => runText(r));
    },
  );
  declareRoutes(show, "GET /bots/{bot_ref}/compliance-runs/{run_id}");
}
