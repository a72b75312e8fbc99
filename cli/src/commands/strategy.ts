import { access, writeFile } from "node:fs/promises";
import { dirname, join, relative, resolve, sep } from "node:path";
import type { Command } from "commander";
import { routeCommand } from "../route-command.js";
import { declareAt } from "../routes/declare.js";
import type { StrategyDiagnostic, StrategyFile } from "@svc/strategy-sdk/check";
import { ApiError } from "../client.js";
import { contextOf, machine, outputOf } from "../context.js";
import { CliExit, type Io } from "../io.js";
import { readInput } from "../read-input.js";
import type { Bot } from "../wire.js";

export function registerStrategy(program: Command, io: Io): void {
  const strategy = program
    .command("strategy")
    .description("write, type-check and upload your own strategy code (TypeScript on the SDK)");

  strategy
    .command("init")
    .description("write a moving-average crossover on the strategy SDK to start from")
    .argument("[file]", "where to write it", "strategy.ts")
    .option("--force", "overwrite the file if it exists")
    .action(async (file: string, o: { force?: boolean }) => {
      const exists = await access(file).then(
        () => true,
        () => false,
      );
      if (exists && !o.force)
        throw new CliExit(2, `${file} exists; choose another name or pass --force to overwrite it`);
      await writeFile(file, (await checker()).MA_CROSSOVER_EXAMPLE);
      io.out(
        `wrote ${file}: a moving-average crossover on @svc/strategy-sdk\n` +
          `next: svc strategy check ${file}, then svc strategy push BOT ${file}\n`,
      );
    });

  strategy
    .command("check")
    .description("type-check and bundle a strategy here, as the platform will (exit 1 on errors)")
    .argument("<entry>", "the strategy's entry file (its default export is defineStrategy(...))")
    .argument("[files...]", "its other files, in or below the entry's folder")
    .action(async (entry: string, more: string[], _o: unknown, cmd: Command) => {
      const output = outputOf(cmd);
      const asJson = output !== "table";
      const { files, folder } = await readStrategy(entry, more);
      const result = await (await checker()).checkStrategy(files);
      if (asJson) {
        io.out(
          await machine(
            result.ok
              ? {
                  ok: true,
                  digest: result.digest,
                  bundle_digest: result.bundleDigest,
                  sdk_version: result.sdkVersion,
                }
              : { ok: false, input: result.input, diagnostics: result.diagnostics },
            output,
          ),
        );
        if (!result.ok) throw new CliExit(1);
        return;
      }
      if (!result.ok) {
        if (result.input) throw new CliExit(2, result.input.message);
        await printDiagnostics(io, folder, result.diagnostics);
        throw new CliExit(1, `${entry}: ${count(result.diagnostics.length)}`);
      }
      io.out(
        `${entry}: ok, ${result.digest} (${files.length} file${files.length === 1 ? "" : "s"})\n`,
      );
    });

  strategy
    .command("push")
    .description(
      "check the strategy here, then upload it as the bot's next version (its strategy becomes this code)",
    )
    .argument("<bot>", "slug or id of the bot")
    .argument("<entry>", "the strategy's entry file (.ts, or one .py file: a Python strategy)")
    .argument("[files...]", "its other files, in or below the entry's folder")
    .option(
      "--param <name=value>",
      'set one of the strategy\'s declared parameters (repeat it); the value is JSON (12, 0.5, true, "long") or else text',
      collectParam,
      {},
    )
    .action(
      async (
        ref: string,
        entry: string,
        more: string[],
        o: { param: Record<string, unknown> },
        cmd: Command,
      ) => {
        const ctx = await contextOf(cmd, io);
        const { files, folder } = await readStrategy(entry, more);
        // A Python strategy (one .py file) is checked by the platform only: it compiles it.
        const python = entry.endsWith(".py");
        if (python && more.length > 0)
          throw new CliExit(
            2,
            `a Python strategy is one file; ${entry} came with ${more.length} more`,
          );
        const local = python ? undefined : await (await checker()).checkStrategy(files);
        if (local && !local.ok) {
          if (local.input) throw new CliExit(2, local.input.message);
          await printDiagnostics(io, folder, local.diagnostics);
          throw new CliExit(
            1,
            `${entry}: ${count(local.diagnostics.length)}; nothing was uploaded`,
          );
        }
        const path = `/bots/${encodeURIComponent(ref)}`;
        const bot = await ctx.api.get<Bot>(path);
        const spec = {
          ...bot.spec,
          strategy: {
            code: python ? { language: "python", files } : { files },
            parameters: { ...keptParams(bot), ...o.param },
          },
        };
        let updated: Bot;
        try {
          updated = await putWhenCheckerFree(io, () => ctx.api.put<Bot>(path, { spec }));
        } catch (err) {
          const errors = (err as ApiError).details as { errors?: string[] } | undefined;
          if (err instanceof ApiError && errors?.errors)
            for (const line of errors.errors) io.err(`${line}\n`);
          throw err;
        }
        const digest = updated.spec.strategy?.code?.digest;
        ctx.show(updated, () =>
          updated.current_version === bot.current_version
            ? `${updated.slug}: unchanged, version ${updated.current_version} already runs ${digest}\n`
            : `${updated.slug}: version ${updated.current_version}, strategy ${digest}\n`,
        );
      },
    );
  declareAt(program, "strategy push", "PUT /bots/{bot_ref}", "GET /bots/{bot_ref}");
  routeCommand(
    strategy,
    {
      name: "pull",
      summary: "a bot version's strategy code as stored: its files and digest",
      route: "GET /bots/{bot_ref}/versions/{version}/strategy",
      args: [
        ["bot", "slug or id"],
        ["version", "the version's number"],
      ],
    },
    io,
  );
}

/**
 * The bot's parameters a push keeps: those of the code it runs (the platform holds them to the
 * new code's declarations), never a built-in family's, which name another strategy's settings.
 */
function keptParams(bot: Bot): Record<string, unknown> {
  const strategy = bot.spec.strategy as
    { code?: unknown; parameters?: Record<string, unknown> | null } | undefined;
  return strategy?.code ? (strategy.parameters ?? {}) : {};
}

/** One --param name=value into the map: JSON when it parses ("12", "true"), else the text. */
function collectParam(text: string, into: Record<string, unknown>): Record<string, unknown> {
  const at = text.indexOf("=");
  if (at < 1) throw new CliExit(2, `--param ${text}: give name=value, for example --param fast=12`);
  const raw = text.slice(at + 1);
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch {
    value = raw;
  }
  return { ...into, [text.slice(0, at)]: value };
}

/** Tries a busy platform's checker (429 strategy_check_busy, nothing written) a few times more. */
async function putWhenCheckerFree<T>(io: Io, put: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await put();
    } catch (err) {
      if (!(err instanceof ApiError) || err.code !== "strategy_check_busy" || attempt >= BUSY_TRIES)
        throw err;
      io.err(`svc: ${err.message}; trying again (${attempt}/${BUSY_TRIES - 1})\n`);
      await io.sleep(BUSY_PAUSE_MS);
    }
  }
}

const BUSY_TRIES = 6;
const BUSY_PAUSE_MS = 2_000;

/** The entry and its other files, each named by its path from the entry's folder. */
async function readStrategy(
  entry: string,
  more: string[],
): Promise<{ files: StrategyFile[]; folder: string }> {
  const folder = dirname(resolve(entry));
  const files: StrategyFile[] = [];
  for (const file of [entry, ...more]) {
    const path = relative(folder, resolve(file));
    if (path.startsWith(`..${sep}`) || path === "..")
      throw new CliExit(2, `${file} is not in or below ${dirname(entry)}, the entry's folder`);
    files.push({ path: path.split(sep).join("/"), content: await readInput(file) });
  }
  return { files, folder };
}

/** Each error at the path the person typed, so a terminal or editor opens it. */
/** The TypeScript compiler and bundler behind check: loaded when a command needs them. */
const checker = () => import("@svc/strategy-sdk/check");

async function printDiagnostics(
  io: Io,
  folder: string,
  diagnostics: StrategyDiagnostic[],
): Promise<void> {
  const { formatDiagnostic } = await checker();
  const here = process.cwd();
  for (const d of diagnostics) {
    const file =
      d.file.startsWith("@") || d.file.startsWith("(")
        ? d.file
        : relative(here, join(folder, d.file));
    io.err(`${formatDiagnostic({ ...d, file })}\n`);
  }
}

function count(n: number): string {
  return `${n} error${n === 1 ? "" : "s"}`;
}
