import type { Command } from "commander";
import { contextOf } from "../context.js";
import { CliExit, type Io } from "../io.js";
import { objectFields, rowsTable } from "../render.js";
import { routeCommand } from "../route-command.js";
import { declareRoutes } from "../routes/declare.js";
import { watchUntil, withWatch } from "../watch.js";
import type { Items } from "../wire.js";

interface Drill {
  id: string;
  state: string;
  verdict: string;
  [key: string]: unknown;
}

/** A drill that runs no more: finished or interrupted. */
const drillEnded = (d: Drill) => !/running|unspecified/i.test(String(d.state ?? ""));

const DRILL_KEYS = [
  "id",
  "state",
  "verdict",
  "started_at",
  "ended_at",
  "started_by",
  "reason",
  "bots",
  "draining_p50_ms",
  "draining_max_ms",
  "stopped_max_ms",
  "all_restarted",
  "note",
];

interface Schedule {
  enabled?: boolean;
  month_of_quarter?: number;
  day_of_month?: number;
  hour_utc?: number;
  minute_utc?: number;
  reason?: string;
}

interface ScheduleOptions {
  enable?: boolean;
  disable?: boolean;
  monthOfQuarter?: string;
  day?: string;
  hour?: string;
  minute?: string;
  reason?: string;
}

export function registerDrills(program: Command, io: Io): void {
  const drills = program
    .command("drills")
    .description("the quarterly kill-switch drill: start, list, show (--watch), schedule");

  const start = drills
    .command("start")
    .description(
      "start a drill now: engages one more platform switch, times every paper session to a stop, releases and judges",
    )
    .option("--reason <text>", "why (kept with the drill)");
  withWatch(start, "the drill ends", "1000");
  start
    .addHelpText("after", "\nExample:\n  svc drills start --reason 'Q4 drill' --watch\n")
    .action(async (o: { reason?: string; watch?: boolean; interval?: string }, cmd: Command) => {
      const ctx = await contextOf(cmd, io);
      const started = await ctx.api.post<Drill>("/kill-switch/drills", {
        ...(o.reason ? { reason: o.reason } : {}),
      });
      let first: Drill | undefined = started;
      const d = await watchUntil(
        ctx,
        o,
        async () => {
          const now =
            first ??
            (await ctx.api.get<Drill>(`/kill-switch/drills/${encodeURIComponent(started.id)}`));
          first = undefined;
          return now;
        },
        drillEnded,
        (d) =>
          `drill ${d.id} ${d.state}${d.verdict && !/unspecified/i.test(d.verdict) ? ` ${d.verdict}` : ""}`,
      );
      ctx.show(d, () => drillText(d));
    });
  declareRoutes(start, "POST /kill-switch/drills", "GET /kill-switch/drills/{id}");

  const list = drills
    .command("list")
    .description("the latest 100 drills, newest first; with --year every drill of that year")
    .option("--year <yyyy>", "every drill started that year (UTC), oldest first")
    .action(async (o: { year?: string }, cmd: Command) => {
      const ctx = await contextOf(cmd, io);
      const answer = await ctx.api.get<Items<Drill>>(
        `/kill-switch/drills${o.year ? `?year=${encodeURIComponent(o.year)}` : ""}`,
      );
      ctx.show(answer, () =>
        rowsTable(answer.items, ["id", "state", "verdict", "started_at", "bots", "started_by"]),
      );
    });
  declareRoutes(list, "GET /kill-switch/drills");

  const show = drills
    .command("show")
    .description("one drill: running, or finished with its verdicts per bot")
    .argument("<id>", "the drill's id");
  withWatch(show, "the drill ends", "1000");
  show.action(async (id: string, o: { watch?: boolean; interval?: string }, cmd: Command) => {
    const ctx = await contextOf(cmd, io);
    const d = await watchUntil(
      ctx,
      o,
      () => ctx.api.get<Drill>(`/kill-switch/drills/${encodeURIComponent(id)}`),
      drillEnded,
      (d) => `drill ${d.id} ${d.state}`,
    );
    ctx.show(d, () => drillText(d));
  });
  declareRoutes(show, "GET /kill-switch/drills/{id}");

  const schedule = drills
    .command("schedule")
    .description("when the quarterly drill runs by itself");
  routeCommand(
    schedule,
    {
      name: "get",
      summary: "the schedule, when it runs next, and the last quarters (missed ones marked)",
      route: "GET /kill-switch/drills/schedule",
      keys: ["schedule", "next_run_at", "quarters"],
    },
    io,
  );
  const set = schedule
    .command("set")
    .description(
      "change the schedule: the flags given change, the rest stay (halt:platform and step-up)",
    )
    .option("--enable", "run the drill by itself each quarter")
    .option("--disable", "do not run it by itself")
    .option("--month-of-quarter <n>", "1 to 3")
    .option("--day <n>", "day of the month, 1 to 28")
    .option("--hour <n>", "hour, UTC, 0 to 23")
    .option("--minute <n>", "minute, 0 to 59")
    .option("--reason <text>", "why (kept with the schedule)")
    .addHelpText(
      "after",
      "\nExample:\n  svc drills schedule set --enable --month-of-quarter 2 --day 15 --hour 6 --minute 0\n",
    )
    .action(async (o: ScheduleOptions, cmd: Command) => {
      const ctx = await contextOf(cmd, io);
      if (o.enable && o.disable) throw new CliExit(2, "--enable and --disable contradict");
      const current = await ctx.api.get<{ schedule?: Schedule }>("/kill-switch/drills/schedule");
      const next: Schedule = { ...(current.schedule ?? {}) };
      delete (next as Record<string, unknown>).set_by;
      delete (next as Record<string, unknown>).set_at;
      if (o.enable) next.enabled = true;
      if (o.disable) next.enabled = false;
      const int = (flag: string, v: string | undefined) => {
        if (v === undefined) return undefined;
        const n = Number(v);
        if (!Number.isInteger(n)) throw new CliExit(2, `${flag} must be a whole number, not ${v}`);
        return n;
      };
      next.month_of_quarter = int("--month-of-quarter", o.monthOfQuarter) ?? next.month_of_quarter;
      next.day_of_month = int("--day", o.day) ?? next.day_of_month;
      next.hour_utc = int("--hour", o.hour) ?? next.hour_utc;
      next.minute_utc = int("--minute", o.minute) ?? next.minute_utc;
      if (o.reason !== undefined) next.reason = o.reason;
      const answer = await ctx.api.put<Record<string, unknown>>(
        "/kill-switch/drills/schedule",
        next,
      );
      ctx.show(answer, () => objectFields(answer, ["schedule", "next_run_at"]));
    });
  declareRoutes(set, "PUT /kill-switch/drills/schedule", "GET /kill-switch/drills/schedule");
}

function drillText(d: Drill): string {
  const head = objectFields(d, DRILL_KEYS);
  const perBot = Array.isArray(d.per_bot) ? (d.per_bot as unknown[]) : [];
  if (perBot.length === 0) return head;
  return `${head}\n${rowsTable(perBot, ["bot_slug", "task_id", "verdict", "draining_ms", "draining_bound_ms", "stopped_ms", "stopped_bound_ms", "restarted"])}`;
}
