import { randomUUID } from "node:crypto";
import type { Command } from "commander";
import { declareAt } from "../routes/declare.js";
import { watchUntil, withWatch } from "../watch.js";
import { contextOf } from "../context.js";
import { CliExit, type Io } from "../io.js";
import { fields, number, percent, table, when } from "../output.js";
import type { Items } from "../wire.js";

/** A sweep as the API answers it (the fields svc reads). */
export interface Sweep {
  id: string;
  request_key: string;
  version: number;
  mode: string;
  data_source: string;
  combinations: number;
  skipped?: number;
  runs_total: number;
  runs_pending?: number;
  runs_succeeded?: number;
  runs_failed?: number;
  status: string;
  metric: string;
  created_at: string;
  results?: Array<{
    index: number;
    parameters: Record<string, unknown>;
    deployment_id: string;
    status: string;
    fold?: number;
    out_of_sample?: boolean;
    metrics?: Record<string, unknown>;
    error?: string;
  }>;
  folds?: Array<{
    fold: number;
    status: string;
    in_sample_start: string;
    in_sample_end: string;
    out_of_sample_end: string;
    chosen_parameters?: Record<string, unknown>;
    in_sample_metric?: number;
    out_of_sample_metrics?: Record<string, unknown>;
  }>;
  walk_forward?: {
    folds_done?: number;
    out_of_sample_return?: number;
    mean_out_of_sample_metric?: number;
    mean_in_sample_metric?: number;
    efficiency?: number;
  };
}

interface RunOptions {
  param: string[];
  random?: string;
  seed?: string;
  dataSource?: string;
  version?: string;
  start?: string;
  end?: string;
  walkForward?: string;
  metric?: string;
  key?: string;
  watch?: boolean;
  interval: string;
  top: string;
}

interface ShowOptions {
  sort?: string;
  asc?: boolean;
  top: string;
}

const collect = (v: string, all: string[]) => [...all, v];

export function registerSweep(program: Command, io: Io): void {
  const sweep = program
    .command("sweep")
    .description("parameter sweeps: a grid or a seeded random search, each combination a trial");

  sweep
    .command("run")
    .description("sweep a bot version's declared parameters; --watch waits for the table")
    .argument("<bot>", "slug or id")
    .requiredOption(
      "-p, --param <spec>",
      "NAME=V1,V2,... (values) or NAME=MIN:MAX[:STEP] (a range); repeat for each parameter",
      collect,
      [],
    )
    .option("--random <n>", "a random search of N combinations instead of the grid")
    .option("--seed <n>", "the random search's seed", "1")
    .option("--data-source <source>", "csv:NAME (a dataset) or synthetic:SEED")
    .option("--version <n>", "a version of the bot (default: its current one)")
    .option("--start <time>", "first bar time (ISO 8601)")
    .option("--end <time>", "end of the range (ISO 8601)")
    .option(
      "--walk-forward <folds[:segments]>",
      "walk-forward: FOLDS out-of-sample segments, each after SEGMENTS in-sample ones (default 3)",
    )
    .option(
      "--metric <name>",
      "what picks a walk-forward winner (sharpe, sortino, total_return, ...)",
    )
    .option("--key <key>", "the sweep's request key: the same key sends the same sweep again")
    .option("-w, --watch", "wait for the end, then print the results; exit 1 unless it ends done")
    .option("--interval <ms>", "how often --watch asks the platform", "1000")
    .option("--top <n>", "rows of the results table printed", "20")
    .addHelpText(
      "after",
      "\nExamples:\n  svc sweep run alpha-ma -p fast=5,10,20 -p slow=30:90:10 --watch\n" +
        "  svc sweep run alpha-ma -p fast=2:50 -p slow=20:200 --random 200 --seed 7\n" +
        "  svc sweep run alpha-ma -p fast=5,10 -p slow=40,80 --start 2021-01-01T00:00:00Z --end 2024-01-01T00:00:00Z --walk-forward 4:3\n",
    )
    .action(async (bot: string, o: RunOptions, cmd: Command) => {
      const ctx = await contextOf(cmd, io);
      const body: Record<string, unknown> = {
        request_key: o.key ?? randomUUID(),
        parameters: o.param.map(parameterOf),
      };
      if (o.random !== undefined) {
        body.mode = "SWEEP_MODE_RANDOM";
        body.samples = whole(o.random, "--random");
        body.seed = whole(o.seed ?? "1", "--seed");
      }
      if (o.dataSource) body.data_source = o.dataSource;
      if (o.version) body.version = whole(o.version, "--version");
      if (o.start) body.start = o.start;
      if (o.end) body.end = o.end;
      if (o.metric) body.metric = o.metric;
      if (o.walkForward) {
        const [folds, segments] = o.walkForward.split(":");
        body.walk_forward = {
          folds: whole(folds ?? "", "--walk-forward"),
          ...(segments ? { in_sample_segments: whole(segments, "--walk-forward") } : {}),
        };
      }
      const path = `/bots/${encodeURIComponent(bot)}/sweeps`;
      const accepted = await ctx.api.post<Sweep>(path, body);
      if (!o.watch) {
        ctx.show(
          accepted,
          () =>
            `sweep accepted: ${accepted.id} (key ${accepted.request_key}), ${accepted.runs_total} backtests` +
            `${accepted.skipped ? `, ${accepted.skipped} combinations skipped` : ""}\n`,
        );
        return;
      }
      const interval = whole(o.interval, "--interval");
      if (interval < 50)
        throw new CliExit(2, `--interval must be at least 50 ms, not ${o.interval}`);
      let s = accepted;
      while (s.status === "running") {
        io.err(`${s.runs_succeeded ?? 0}/${s.runs_total} done, ${s.runs_failed ?? 0} failed\n`);
        await io.sleep(interval);
        s = await ctx.api.get<Sweep>(`${path}/${s.id}`);
      }
      const done = await ctx.api.get<Sweep>(`${path}/${s.id}`);
      ctx.show(done, () => sweepText(done, whole(o.top, "--top")));
      if (done.status !== "done") throw new CliExit(1, `sweep ${done.status}`);
    });

  const show = sweep
    .command("show")
    .description("a sweep's progress and its results table, best first")
    .argument("<bot>", "slug or id")
    .argument("<id>", "the sweep's id")
    .option("--sort <metric>", "sharpe (default), sortino, total_return, pnl, max_drawdown, ...")
    .option("--asc", "smallest first")
    .option("--top <n>", "rows of the results table printed", "20");
  withWatch(show, "the sweep ends", "1000").action(
    async (
      bot: string,
      id: string,
      o: ShowOptions & { watch?: boolean; interval?: string },
      cmd: Command,
    ) => {
      const ctx = await contextOf(cmd, io);
      const query = new URLSearchParams();
      if (o.sort) query.set("sort_by", o.sort);
      if (o.asc) query.set("ascending", "true");
      const path = `/bots/${encodeURIComponent(bot)}/sweeps/${encodeURIComponent(id)}${query.size ? `?${query}` : ""}`;
      const s = await watchUntil(
        ctx,
        o,
        () => ctx.api.get<Sweep>(path),
        (s) => s.status !== "running",
        (s) =>
          `${s.status} ${s.runs_succeeded ?? 0}/${s.runs_total} done, ${s.runs_failed ?? 0} failed`,
      );
      ctx.show(s, () => sweepText(s, whole(o.top, "--top"), o.sort));
    },
  );

  sweep
    .command("list")
    .description("a bot's sweeps, newest first")
    .argument("<bot>", "slug or id")
    .action(async (bot: string, _o: unknown, cmd: Command) => {
      const ctx = await contextOf(cmd, io);
      const list = await ctx.api.get<Items<Sweep>>(`/bots/${encodeURIComponent(bot)}/sweeps`);
      ctx.show(list, () =>
        table(
          ["ID", "STATUS", "VERSION", "RUNS", "DONE", "FAILED", "CREATED"],
          list.items.map((s) => [
            s.id,
            s.status,
            s.version,
            s.runs_total,
            s.runs_succeeded ?? 0,
            s.runs_failed ?? 0,
            when(s.created_at),
          ]),
        ),
      );
    });

  sweep
    .command("cancel")
    .description("cancel a sweep: what has not finished ends halted")
    .argument("<bot>", "slug or id")
    .argument("<id>", "the sweep's id")
    .action(async (bot: string, id: string, _o: unknown, cmd: Command) => {
      const ctx = await contextOf(cmd, io);
      const s = await ctx.api.post<Sweep>(
        `/bots/${encodeURIComponent(bot)}/sweeps/${encodeURIComponent(id)}/cancel`,
        {},
      );
      ctx.show(s, () => `sweep ${s.id} ${s.status}: ${s.runs_succeeded ?? 0} runs had finished\n`);
    });
  declareAt(
    program,
    "sweep run",
    "POST /bots/{bot_ref}/sweeps",
    "GET /bots/{bot_ref}/sweeps/{sweep_id}",
  );
  declareAt(program, "sweep show", "GET /bots/{bot_ref}/sweeps/{sweep_id}");
  declareAt(program, "sweep list", "GET /bots/{bot_ref}/sweeps");
  declareAt(program, "sweep cancel", "POST /bots/{bot_ref}/sweeps/{sweep_id}/cancel");
}

/** NAME=V1,V2 (numbers, true/false, or strings for an enum) or NAME=MIN:MAX[:STEP]. */
export function parameterOf(spec: string): Record<string, unknown> {
  const at = spec.indexOf("=");
  const name = spec.slice(0, at);
  const rest = spec.slice(at + 1);
  if (at <= 0 || !rest)
    throw new CliExit(2, `--param ${spec}: give NAME=V1,V2,... or NAME=MIN:MAX[:STEP]`);
  if (rest.includes(":")) {
    const parts = rest.split(":").map(Number);
    if (parts.length > 3 || parts.some((n) => !Number.isFinite(n)))
      throw new CliExit(2, `--param ${spec}: a range is MIN:MAX or MIN:MAX:STEP, all numbers`);
    const [min, max, step] = parts;
    return { name, min, max, ...(step === undefined ? {} : { step }) };
  }
  const values = rest.split(",").map((v) => {
    if (v === "true" || v === "false") return v === "true";
    const n = Number(v);
    return v.trim() !== "" && Number.isFinite(n) ? n : v;
  });
  return { name, values };
}

function whole(v: string, option: string): number {
  const n = Number(v);
  if (!Number.isSafeInteger(n) || n < 0)
    throw new CliExit(2, `${option} must be a whole number, not ${JSON.stringify(v)}`);
  return n;
}

const paramsText = (p: Record<string, unknown> | undefined) =>
  Object.entries(p ?? {})
    .map(([k, v]) => `${k}=${String(v)}`)
    .join(" ");

function sweepText(s: Sweep, top: number, sortedBy = "sharpe"): string {
  const head = fields([
    ["sweep", s.id],
    ["status", s.status],
    ["version", s.version],
    ["data source", s.data_source],
    ["combinations", `${s.combinations}${s.skipped ? ` (${s.skipped} skipped)` : ""}`],
    [
      "runs",
      `${s.runs_total}: ${s.runs_succeeded ?? 0} done, ${s.runs_failed ?? 0} failed, ${s.runs_pending ?? 0} to go`,
    ],
  ]);
  const rows = (s.results ?? [])
    .slice(0, top)
    .map((r) => [
      r.fold ? `${r.fold}${r.out_of_sample ? " oos" : ""}` : "",
      r.index >= 0 ? r.index : "",
      paramsText(r.parameters),
      r.status,
      number(r.metrics?.sharpe),
      percent(r.metrics?.total_return),
      percent(r.metrics?.max_drawdown),
      number(r.metrics?.trades, 0),
    ]);
  const results = rows.length
    ? `\nresults by ${sortedBy} (top ${rows.length}):\n` +
      table(["FOLD", "#", "PARAMETERS", "STATUS", "SHARPE", "RETURN", "MAX DD", "TRADES"], rows)
    : "";
  const folds = s.folds?.length
    ? `\nwalk-forward by ${s.metric}:\n` +
      table(
        [
          "FOLD",
          "IN-SAMPLE",
          "OUT-OF-SAMPLE TO",
          "CHOSEN",
          "IS " + s.metric,
          "OOS RETURN",
          "STATUS",
        ],
        s.folds.map((f) => [
          f.fold,
          `${when(f.in_sample_start)} .. ${when(f.in_sample_end)}`,
          when(f.out_of_sample_end),
          paramsText(f.chosen_parameters),
          number(f.in_sample_metric),
          percent(f.out_of_sample_metrics?.total_return),
          f.status,
        ]),
      ) +
      fields([
        ["out-of-sample return", percent(s.walk_forward?.out_of_sample_return ?? 0)],
        ["efficiency (oos / is)", number(s.walk_forward?.efficiency ?? 0)],
      ])
    : "";
  return head + results + folds;
}
