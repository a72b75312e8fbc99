import { Option, type Command } from "commander";
import { CliExit } from "./io.js";
import type { Ctx } from "./context.js";

/** Adds --watch and --interval to a command whose subject changes. */
export function withWatch(cmd: Command, what: string, defaultMs: string): Command {
  return cmd
    .addOption(new Option("-w, --watch", `ask again until ${what}, a line at each change`))
    .addOption(
      new Option("--interval <ms>", "how often --watch asks, in milliseconds").default(defaultMs),
    );
}

export function intervalOf(o: { interval?: string }): number {
  const ms = Number(o.interval ?? "1000");
  if (!Number.isFinite(ms) || ms < 50)
    throw new CliExit(
      2,
      `--interval must be a number of milliseconds of 50 or more, not ${o.interval}`,
    );
  return ms;
}

/**
 * Reads the subject, then with --watch reads it again every interval until `final` says it has
 * ended. For people each change of `state` is a line on stderr and the final reading is printed
 * once; for programs (-o json|yaml) only the final reading is printed, so stdout parses.
 */
export async function watchUntil<T>(
  ctx: Ctx,
  opts: { watch?: boolean; interval?: string },
  read: () => Promise<T>,
  final: (value: T) => boolean,
  state: (value: T) => string,
): Promise<T> {
  const ms = intervalOf(opts);
  let value = await read();
  if (!opts.watch) return value;
  let last = "";
  for (;;) {
    const now = state(value);
    if (now !== last && !ctx.json) ctx.io.err(`${new Date().toISOString()}  ${now}\n`);
    last = now;
    if (final(value)) return value;
    await ctx.io.sleep(ms);
    value = await read();
  }
}
