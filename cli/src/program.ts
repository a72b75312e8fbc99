import { Command, CommanderError, Option } from "commander";
import { ApiError, Unreachable } from "./client.js";
import { registerAgents } from "./commands/agents.js";
import { registerBacktest } from "./commands/backtest.js";
import { registerBots } from "./commands/bots.js";
import { registerCompliance } from "./commands/compliance.js";
import { registerData } from "./commands/data.js";
import { registerDatasets } from "./commands/datasets.js";
import { registerHaltAll } from "./commands/halt-all.js";
import { registerKillSwitch } from "./commands/kill-switch.js";
import { registerPaper } from "./commands/paper.js";
import { registerPromotion } from "./commands/promotion.js";
import { registerStrategy } from "./commands/strategy.js";
import { registerSweep } from "./commands/sweep.js";
import { registerWebhooks } from "./commands/webhooks.js";
import { defaultUrl } from "./context.js";
import { CliExit, type Io } from "./io.js";

/** The default deadline of each HTTP call, in seconds. */
export const DEFAULT_TIMEOUT_S = "30";

/** The whole `svc` command tree, writing to `io`. A fresh one per run: commander keeps state. */
export function buildProgram(io: Io): Command {
  const program = new Command("svc")
    .description("The operator command of the trading platform, a client of its public API.")
    .exitOverride()
    .configureOutput({ writeOut: io.out, writeErr: io.err })
    .showHelpAfterError("(svc --help lists the commands; svc COMMAND --help explains one)")
    .addOption(
      new Option("--url <url>", "the platform's API (SVC_URL; else 127.0.0.1 on SVC_PORT)").default(
        defaultUrl(io.env),
      ),
    )
    // No commander default for the token: --help would print it.
    .option("--token <token>", "a bearer token, in OIDC mode (default: SVC_TOKEN)")
    .option("--as <user>", "local auth: act as this local user (x-svc-local-user)")
    .option("--json", "print the API's JSON answer, and nothing else, on stdout")
    .option("--timeout <seconds>", "deadline of each HTTP call", DEFAULT_TIMEOUT_S);
  registerBots(program, io);
  registerStrategy(program, io);
  registerBacktest(program, io);
  registerSweep(program, io);
  registerPromotion(program, io);
  registerPaper(program, io);
  registerKillSwitch(program, io);
  registerHaltAll(program, io);
  registerAgents(program, io);
  registerDatasets(program, io);
  registerData(program, io);
  registerCompliance(program, io);
  registerWebhooks(program, io);
  return program;
}

/** Runs `svc` with `args` (no node, no script) and returns its exit code; never exits itself. */
export async function run(args: string[], io: Io): Promise<number> {
  const program = buildProgram(io);
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
