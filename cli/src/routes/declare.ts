import type { Command } from "commander";

/** The API routes each command calls, for the test that every route has a command. */
const routesOf = new WeakMap<Command, string[]>();

/** Marks `cmd` as the command of these routes (`METHOD /path/{param}`, as in proto/). */
export function declareRoutes(cmd: Command, ...routes: string[]): Command {
  routesOf.set(cmd, [...(routesOf.get(cmd) ?? []), ...routes]);
  return cmd;
}

/** Every command of the tree under `root` with the routes it declared: `svc bots list` -> [...]. */
export function declaredRoutes(root: Command): Array<{ command: string; routes: string[] }> {
  const out: Array<{ command: string; routes: string[] }> = [];
  const walk = (cmd: Command, path: string[]) => {
    for (const c of cmd.commands) {
      const p = [...path, c.name()];
      const routes = routesOf.get(c);
      if (routes) out.push({ command: p.join(" "), routes });
      walk(c, p);
    }
  };
  walk(root, ["svc"]);
  return out;
}

/**
 * declareRoutes for a command found by its path under `root` (`"kill-switch list"`): for the
 * modules that build commands in chains. A path that names no command is a bug, thrown at once.
 */
export function declareAt(root: Command, path: string, ...routes: string[]): void {
  let cmd: Command | undefined = root;
  for (const name of path.split(" ")) cmd = cmd?.commands.find((c) => c.name() === name);
  if (!cmd) throw new Error(`declareAt: no command "${path}"`);
  declareRoutes(cmd, ...routes);
}
