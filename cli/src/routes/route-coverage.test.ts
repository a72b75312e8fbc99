import { readFile } from "node:fs/promises";
import { describe, expect, it } from "vitest";
import { processIo } from "../io.js";
import { buildFullProgram } from "../program.js";
import { apiRoutes } from "./api-routes.js";
import { declaredRoutes } from "./declare.js";
import { WITHOUT_COMMAND } from "./without-command.js";

const routes = await apiRoutes();
const declared = declaredRoutes(await buildFullProgram(processIo()));
const commandsOf = (route: string) =>
  declared.filter((d) => d.routes.includes(route)).map((d) => d.command);

describe("every route a user calls has an svc command", () => {
  it("reads the routes from the generated descriptors", () => {
    expect(routes.length).toBeGreaterThan(80);
    expect(routes.map((r) => r.route)).toContain(
      "GET /bots/{bot_ref}/deployments/{deployment_id}/trades",
    );
  });

  it.each(routes.map((r) => [r.route, r.rpc] as const))("%s (%s)", (route) => {
    const commands = commandsOf(route);
    const allowed = WITHOUT_COMMAND[route];
    if (allowed) {
      // An allowed route that gained a command should leave the allow-list.
      expect(commands, `${route} has a command now: remove it from without-command.ts`).toEqual([]);
      expect(allowed.length).toBeGreaterThan(20);
    } else expect(commands, `no svc command calls ${route}`).not.toEqual([]);
  });

  it("declares only routes the API has, and allows only routes the API has", () => {
    const known = new Set(routes.map((r) => r.route));
    expect(declared.flatMap((d) => d.routes).filter((r) => !known.has(r))).toEqual([]);
    expect(Object.keys(WITHOUT_COMMAND).filter((r) => !known.has(r))).toEqual([]);
  });

  it("lists each route and its command in docs/cli.md", async () => {
    const doc = await readFile(new URL("../../../docs/cli.md", import.meta.url), "utf8");
    const missing = routes
      .map((r) => r.route)
      .filter((route) => {
        const first = commandsOf(route)[0];
        const row = first
          ? `| \`${route}\` | \`${first}\` |`
          : `| \`${route}\` | (none: ${WITHOUT_COMMAND[route]}) |`;
        return !doc.includes(row);
      });
    expect(missing).toEqual([]);
  });
});
