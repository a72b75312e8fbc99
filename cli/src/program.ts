import { Command, CommanderError, Help, Option } from "commander";
import { ApiError, Unreachable } from "./client.js";
import { COMMAND_MODULES } from "./commands/index.js";
import { defaultUrl, OUTPUT_FORMATS } from "./context.js";
import { CliExit, type Io } from "./io.js";

/** The default deadline of each HTTP call, in seconds. */
export const DEFAULT_TIMEOUT_S = "30";

/** Options of `svc` itself that take a value: skipped when looking for the command's name. */
const VALUE_OPTIONS = new Set(["--url", "--token", "--as", "--timeout", "-o", "--output"]);

/** The words of `args` that are not options of `svc` itself. */
function operands(args: string[]): string[] {
  const words: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (a === "--") return [...words, ...args.slice(i + 1)];
    if (!a.startsWith("-")) words.push(a);
    else if (VALUE_OPTIONS.has(a)) i++;
  }
  return words;
}

/** The command `args` runs (`svc help bots` asks about bots: its module is the one to load). */
export function commandName(args: string[]): string | undefined {
  const [first, second] = operands(args);
  return first === "help" && second ? second : first;
}

/** `svc` with its own options and no commands yet. */
function rootCommand(io: Io): Command {
  return (
    new Command("svc")
      .description("The operator command of the trading platform, a client of its public API.")
      .exitOverride()
      .configureOutput({ writeOut: io.out, writeErr: io.err })
      .showHelpAfterError("(svc --help lists the commands; svc COMMAND --help explains one)")
      .addOption(
        new Option(
          "--url <url>",
          "the platform's API (SVC_URL; else 127.0.0.1 on SVC_PORT)",
        ).default(defaultUrl(io.env)),
      )
      // No commander default for the token: --help would print it.
      .option("--token <token>", "a bearer token, in OIDC mode (default: SVC_TOKEN)")
      .option("--as <user>", "local auth: act as this local user (x-svc-local-user)")
      .addOption(
        new Option("-o, --output <format>", "print answers as a table, or the API's JSON or YAML")
          .choices(OUTPUT_FORMATS)
          .default("table"),
      )
      .option("--json", "print the API's JSON answer, and nothing else, on stdout (-o json)")
      .option("--timeout <seconds>", "deadline of each HTTP call", DEFAULT_TIMEOUT_S)
  );
}

/**
 * The `svc` command tree for `args`: the module of the command named there is loaded and
 * registered whole; every other command is a name and a summary, enough for `svc --help`.
 * Loading only one module is what keeps `svc --help` fast (the strategy checker alone is a
 * TypeScript compiler).
 */
export async function buildProgram(io: Io, args: string[] = []): Promise<Command> {
  const program = rootCommand(io);
  const name = commandName(args);
  // A stand-in shows in --help as its command would: its name, then its arguments.
  const terms = new Map<Command, string>();
  program.configureHelp({
    subcommandTerm: (cmd) => terms.get(cmd) ?? new Help().subcommandTerm(cmd),
  });
  for (const m of COMMAND_MODULES) {
    if (name !== undefined && m.commands.some(([n]) => n === name)) (await m.load())(program, io);
    else
      for (const [n, summary, args] of m.commands)
        if (summary) terms.set(program.command(n).description(summary), args ? `${n} ${args}` : n);
  }
  return program;
}

/** The whole tree, every module loaded: for completion scripts and the tests of the tree. */
export async function buildFullProgram(io: Io): Promise<Command> {
  const program = rootCommand(io);
  for (const m of COMMAND_MODULES) (await m.load())(program, io);
  return program;
}

/** Runs `svc` with `args` (no node, no script) and returns its exit code; never exits itself. */
export async function run(args: string[], io: Io): Promise<number> {
  const program = await buildProgram(io, args);
  try {
    await program.parseAsync(args, { from: "user" });
    return 0;
  } catch (err) {
    // Help and --version exit 0; a command line commander cannot parse is a usage error (2).
    if (err instanceof CommanderError) return err.exitCode === 0 ? 0 : 2;
    if (err instanceof CliExit) {
      if (err.message) io.err(`svc: ${err.message}\n`);
      return err.code;
    }
    if (err instanceof ApiError) {
      io.err(`svc: ${err.status} ${err.code}: ${err.message}\n`);
      return 1;
    }
    if (err instanceof Unreachable) {
      io.err(`svc: ${err.message}\n`);
      return 1;
    }
    // fetch's own failure, from the report and audit helpers that call it directly.
    const e = err as Error & { cause?: { code?: string } };
    if (e instanceof TypeError && e.message === "fetch failed") {
      const url = program.opts<{ url: string }>().url;
      io.err(`svc: cannot reach the platform at ${url}: ${e.cause?.code ?? e.message}\n`);
      return 1;
    }
    if (e.name === "TimeoutError") {
      io.err(`svc: no answer from ${program.opts<{ url: string }>().url} in time (--timeout)\n`);
      return 1;
    }
    io.err(`svc: ${e.message}\n`);
    return 1;
  }
}
