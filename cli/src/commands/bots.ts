import type { Command } from "commander";
import { contextOf } from "../context.js";
import { CliExit, type Io } from "../io.js";
import { readInput } from "../read-input.js";
import { registerBotOps } from "./bot-ops.js";
import { fields, number, percent, table, when } from "../output.js";
import { routeCommand } from "../route-command.js";
import { declareRoutes } from "../routes/declare.js";
import type { Bot, BotSummary, Deployment, Items } from "../wire.js";

const collect = (value: string, previous: string[]) => [...previous, value];

interface CreateOptions {
  file?: string;
  name?: string;
  slug?: string;
  kind?: string;
  fleet?: string;
  family?: string;
  param: string[];
  symbols?: string;
  timeframe?: string;
  initialCash?: string;
  feeBps?: string;
  slippageBps?: string;
  positionSize?: string;
}

export function registerBots(program: Command, io: Io): void {
  const bots = program
    .command("bots")
    .description("list, create, show, update, archive and delete bots");

  const list = bots
    .command("list")
    .description("every bot, oldest first (every page): slug, name, kind, status, version, fleet")
    .option("--status <status>", "only bots in this status (draft, active, archived)")
    .option("--fleet <fleet>", "only bots of this fleet")
    .action(async (o: { status?: string; fleet?: string }, cmd: Command) => {
      const ctx = await contextOf(cmd, io);
      const query = new URLSearchParams({
        ...(o.status ? { status: o.status } : {}),
        ...(o.fleet ? { fleet: o.fleet } : {}),
      }).toString();
      const answer = await ctx.api.all<Items<BotSummary>>(`/bots${query ? `?${query}` : ""}`);
      ctx.show(answer, () =>
        answer.items.length === 0
          ? "no bots\n"
          : table(
              ["SLUG", "NAME", "KIND", "STATUS", "VERSION", "FLEET"],
              answer.items.map((b) => [
                b.slug,
                b.name,
                b.kind,
                b.status,
                b.current_version,
                b.fleet || "-",
              ]),
            ),
      );
    });

  const create = specOptions(
    bots
      .command("create")
      .description("create a bot from a BotSpec file, from flags, or both (flags win)"),
  )
    .addHelpText(
      "after",
      "\nExample:\n  svc bots create --name 'Alpha MA' --fleet majors --family ma_crossover --param fast=10 --param slow=30\n",
    )
    .action(async (o: CreateOptions, cmd: Command) => {
      const ctx = await contextOf(cmd, io);
      const spec = await specOf(o);
      if (!spec.name) throw new CliExit(2, "a bot needs a name: --name NAME or a --file with one");
      const bot = await ctx.api.post<Bot>("/bots", spec);
      ctx.show(
        bot,
        () => `created ${bot.slug} (id ${bot.id}), version ${bot.current_version}, ${bot.status}\n`,
      );
    });

  const show = bots
    .command("show")
    .description("one bot: its spec in short, runtime state and latest deployments")
    .argument("<bot>", "slug or id")
    .action(async (ref: string, _o: unknown, cmd: Command) => {
      const ctx = await contextOf(cmd, io);
      const bot = await ctx.api.get<Bot>(`/bots/${encodeURIComponent(ref)}`);
      if (ctx.json) return ctx.emit(bot);
      const deployments = await ctx.api.get<Items<Deployment>>(
        `/bots/${encodeURIComponent(ref)}/deployments`,
      );
      io.out(showBot(bot, deployments.items));
    });
  declareRoutes(list, "GET /bots");
  declareRoutes(create, "POST /bots");
  declareRoutes(show, "GET /bots/{bot_ref}", "GET /bots/{bot_ref}/deployments");
  registerBotChanges(bots, io);
  registerBotOps(bots, io);
}

/** The flags that make or change a BotSpec, shared by create and update. */
function specOptions(cmd: Command): Command {
  return cmd
    .option("-f, --file <spec.json>", "a BotSpec as JSON (- reads standard input)")
    .option("--name <name>", "the bot's name (its slug derives from it)")
    .option("--slug <slug>", "the slug, instead of the one derived from the name")
    .option("--kind <kind>", "trading or research", undefined)
    .option("--fleet <fleet>", "the fleet a fleet kill switch halts it with")
    .option("--family <family>", "strategy family, for example ma_crossover")
    .option("--param <key=value>", "a strategy parameter (repeat it)", collect, [])
    .option("--symbols <list>", "symbols it trades, comma-separated (BTC-USD)")
    .option("--timeframe <tf>", "bar size, for example 1m, 1h, 1d")
    .option("--initial-cash <n>", "engine: starting cash")
    .option("--fee-bps <n>", "engine: fees in basis points")
    .option("--slippage-bps <n>", "engine: slippage in basis points")
    .option("--position-size <fraction>", "engine: fraction of equity one position may take");
}

/** update (a new version from the current spec and the flags), archive, delete, versions. */
function registerBotChanges(bots: Command, io: Io): void {
  const update = specOptions(
    bots
      .command("update")
      .description(
        "change a bot: its current spec with the flags (or --file) applied, sent whole as the next version",
      )
      .argument("<bot>", "slug or id"),
  )
    .option("--status <status>", "draft or active (archive with `svc bots archive`)")
    .addHelpText(
      "after",
      "\nFields the flags do not name keep their current values (universe, engine, risk...);\n--file replaces the spec with the file's, then the flags apply.\n\nExample:\n  svc bots update alpha-ma --param slow=40 --fee-bps 5\n",
    )
    .action(async (ref: string, o: CreateOptions & { status?: string }, cmd: Command) => {
      const ctx = await contextOf(cmd, io);
      const path = `/bots/${encodeURIComponent(ref)}`;
      const changesSpec =
        o.file !== undefined ||
        [o.name, o.slug, o.kind, o.fleet, o.family, o.symbols, o.timeframe, o.initialCash]
          .concat([o.feeBps, o.slippageBps, o.positionSize])
          .some((v) => v !== undefined) ||
        o.param.length > 0;
      if (!changesSpec && !o.status)
        throw new CliExit(2, "nothing to change: pass a flag of the spec, --file or --status");
      const body: Record<string, unknown> = {};
      if (changesSpec) {
        const current = o.file
          ? {}
          : ((await ctx.api.get<Bot>(path)).spec as Record<string, unknown>);
        body.spec = await specOf(o, current);
      }
      if (o.status) body.status = o.status;
      const bot = await ctx.api.put<Bot>(path, body);
      ctx.show(bot, () => `${bot.slug}: version ${bot.current_version}, ${bot.status}\n`);
    });
  declareRoutes(update, "PUT /bots/{bot_ref}", "GET /bots/{bot_ref}");

  const archive = bots
    .command("archive")
    .description("archive a bot: it keeps its versions and evidence, and takes no new version")
    .argument("<bot>", "slug or id")
    .action(async (ref: string, _o: unknown, cmd: Command) => {
      const ctx = await contextOf(cmd, io);
      const bot = await ctx.api.put<Bot>(`/bots/${encodeURIComponent(ref)}`, {
        status: "archived",
      });
      ctx.show(bot, () => `${bot.slug}: ${bot.status}\n`);
    });
  declareRoutes(archive, "PUT /bots/{bot_ref}");

  routeCommand(
    bots,
    {
      name: "delete",
      summary:
        "delete a draft or archived bot (one with conformance or stress evidence is archived instead)",
      route: "DELETE /bots/{bot_ref}",
      args: [["bot", "slug or id"]],
    },
    io,
  );
  routeCommand(
    bots,
    {
      name: "versions",
      summary: "a bot's versions, oldest first: number, hash, when",
      route: "GET /bots/{bot_ref}/versions",
      args: [["bot", "slug or id"]],
      allPages: true,
      columns: ["version", "spec_hash", "created_by", "created_at"],
    },
    io,
  );
}

async function specOf(
  o: CreateOptions,
  base: Record<string, unknown> = {},
): Promise<Record<string, unknown>> {
  const spec: Record<string, unknown> = o.file ? await readSpec(o.file) : { ...base };
  const set = (key: string, value: unknown) => {
    if (value !== undefined) spec[key] = value;
  };
  set("name", o.name);
  set("slug", o.slug);
  set("kind", o.kind ?? (spec.kind === undefined ? "trading" : undefined));
  set("fleet", o.fleet);
  if (o.family || o.param.length > 0) {
    const strategy = (spec.strategy ?? {}) as Record<string, unknown>;
    spec.strategy = {
      ...strategy,
      ...(o.family ? { family: o.family } : {}),
      parameters: { ...((strategy.parameters as object) ?? {}), ...paramsOf(o.param) },
    };
  }
  if (o.symbols || o.timeframe) {
    spec.universe = {
      ...((spec.universe as object) ?? {}),
      ...(o.symbols ? { symbols: o.symbols.split(",").map((s) => s.trim()) } : {}),
      ...(o.timeframe ? { timeframe: o.timeframe } : {}),
    };
  }
  const engine: Record<string, number> = {};
  for (const [key, value] of [
    ["initial_cash", o.initialCash],
    ["fee_bps", o.feeBps],
    ["slippage_bps", o.slippageBps],
    ["position_size", o.positionSize],
  ] as const) {
    if (value !== undefined) engine[key] = numberOf(`--${key.replace(/_/g, "-")}`, value);
  }
  if (Object.keys(engine).length > 0)
    spec.engine = { ...((spec.engine as object) ?? {}), ...engine };
  return spec;
}

async function readSpec(file: string): Promise<Record<string, unknown>> {
  const text = await readInput(file);
  try {
    const spec = JSON.parse(text) as unknown;
    if (spec && typeof spec === "object" && !Array.isArray(spec))
      return spec as Record<string, unknown>;
  } catch (e) {
    throw new CliExit(2, `${file} is not JSON: ${(e as Error).message}`);
  }
  throw new CliExit(2, `${file} must hold one JSON object (a BotSpec)`);
}

/** fast=10 -> {fast: 10}; values that read as numbers or booleans are sent as such. */
function paramsOf(pairs: string[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const pair of pairs) {
    const eq = pair.indexOf("=");
    if (eq <= 0) throw new CliExit(2, `--param takes key=value, not ${pair}`);
    const raw = pair.slice(eq + 1);
    out[pair.slice(0, eq)] =
      raw === "true"
        ? true
        : raw === "false"
          ? false
          : raw !== "" && !isNaN(Number(raw))
            ? Number(raw)
            : raw;
  }
  return out;
}

function numberOf(flag: string, value: string): number {
  const n = Number(value);
  if (value.trim() === "" || !Number.isFinite(n))
    throw new CliExit(2, `${flag} must be a number, not ${value}`);
  return n;
}

function showBot(bot: Bot, deployments: Deployment[]): string {
  const strategy = bot.spec.strategy;
  const params = Object.entries(strategy?.parameters ?? {})
    .map(([k, v]) => `${k}=${String(v)}`)
    .join(" ");
  const universe = bot.spec.universe;
  const engaged = bot.runtime?.kill_switch_engaged;
  const reason = bot.runtime?.kill_switch_reason;
  let text = fields([
    ["bot", `${bot.name} (${bot.slug})`],
    ["id", bot.id],
    ["kind", bot.kind],
    ["status", bot.status],
    ["fleet", bot.fleet],
    ["version", `${bot.current_version}  hash ${bot.spec_hash}`],
    [
      "strategy",
      strategy?.code?.digest
        ? `code ${strategy.code.digest} (${(strategy.code.files ?? []).map((f) => f.path).join(", ")})`
        : strategy?.family
          ? `${strategy.family} ${params}`.trim()
          : undefined,
    ],
    [
      "universe",
      universe
        ? `${(universe.symbols ?? []).join(",")} ${universe.timeframe ?? ""}`.trim()
        : undefined,
    ],
    ["phase", bot.runtime?.phase],
    [
      "kill switch",
      engaged
        ? `ENGAGED${reason ? ` (${reason})` : ""}`
        : engaged === false
          ? "clear"
          : // Absent from a runtime that is there: the key-value store did not answer.
            bot.runtime
            ? `UNKNOWN${reason ? ` (${reason})` : ""}`
            : undefined,
    ],
    ["created", when(bot.created_at)],
  ]);
  if (deployments.length === 0) return `${text}\nno deployments\n`;
  text += `\n${deploymentTable(deployments.slice(0, 10))}`;
  if (deployments.length > 10) text += `(${deployments.length - 10} older not shown)\n`;
  return text;
}

/** Newest first, as the API lists them; a backtest's summary in one cell. */
export function deploymentTable(deployments: Deployment[]): string {
  return table(
    ["DEPLOYMENT", "TARGET", "STATUS", "TASK", "VER", "CREATED", "SUMMARY"],
    deployments.map((d) => [
      d.id,
      d.target,
      d.parked ? `${d.status} (parked)` : d.status,
      d.task_id,
      d.version,
      when(d.created_at),
      summaryOf(d.result_summary),
    ]),
  );
}

export function summaryOf(s: Record<string, unknown> | null): string {
  if (!s) return "";
  if (typeof s.error === "string") return `error: ${s.error}`;
  const parts = [
    s.total_return !== undefined ? `return ${percent(s.total_return)}` : "",
    s.sharpe !== undefined ? `sharpe ${number(s.sharpe)}` : "",
    s.max_drawdown !== undefined ? `max dd ${percent(s.max_drawdown)}` : "",
    s.trades !== undefined ? `trades ${String(s.trades)}` : "",
  ];
  return parts.filter(Boolean).join("  ");
}
