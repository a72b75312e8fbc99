import type { Command } from "commander";
import { contextOf, type Ctx } from "./context.js";
import { CliExit, type Io } from "./io.js";
import { readInput } from "./read-input.js";
import { human } from "./render.js";
import { declareRoutes } from "./routes/declare.js";

/** A body field set by a flag: `--peak-multiple 3` sends {"peak_multiple": 3}. */
export interface BodyFlag {
  flag: string;
  field: string;
  help: string;
  type?: "string" | "number" | "boolean" | "list";
  required?: boolean;
}

/**
 * A command that is one API call: the path's {params} are its arguments in order, query and
 * body fields are flags, and the answer is shown as a table or fields, or as JSON or YAML.
 */
export interface RouteSpec {
  name: string;
  summary: string;
  route: `${"GET" | "POST" | "PUT" | "PATCH" | "DELETE"} /${string}`;
  /** Argument names for the path's {params}, in order (default: the params' own names). */
  args?: Array<[name: string, help: string]>;
  query?: Array<[flag: string, param: string, help: string]>;
  body?: BodyFlag[];
  /** `--file F`: the whole body from a JSON file (- reads stdin); flags win over it. */
  bodyFile?: string;
  /** Follows next_page_token to the last page. */
  allPages?: boolean;
  columns?: string[];
  keys?: string[];
  example?: string;
}

function toValue(flag: BodyFlag, raw: unknown): unknown {
  if (flag.type === "number") {
    const n = Number(raw);
    if (!Number.isFinite(n))
      throw new CliExit(2, `${flag.flag} must be a number, not ${String(raw)}`);
    return n;
  }
  if (flag.type === "list")
    return String(raw)
      .split(",")
      .map((s) => s.trim())
      .filter(Boolean);
  return raw;
}

const camel = (flag: string) =>
  flag.replace(/^--/, "").replace(/-([a-z])/g, (_, c: string) => c.toUpperCase());

export function routeCommand(parent: Command, spec: RouteSpec, io: Io): Command {
  const [method, template] = spec.route.split(" ") as [string, string];
  const params = [...template.matchAll(/\{(\w+)\}/g)].map((m) => m[1]!);
  const cmd = parent.command(spec.name).description(spec.summary);
  declareRoutes(cmd, spec.route);
  params.forEach((p, i) => {
    const [name, help] = spec.args?.[i] ?? [p, p];
    cmd.argument(`<${name}>`, help);
  });
  for (const [flag, , help] of spec.query ?? []) cmd.option(`${flag} <value>`, help);
  for (const b of spec.body ?? []) {
    if (b.type === "boolean") cmd.option(b.flag, b.help);
    else if (b.required) cmd.requiredOption(`${b.flag} <value>`, b.help);
    else cmd.option(`${b.flag} <value>`, b.help);
  }
  if (spec.bodyFile) cmd.option("-f, --file <file.json>", spec.bodyFile);
  if (spec.example) cmd.addHelpText("after", `\nExample:\n  ${spec.example}\n`);
  cmd.action(async (...all: unknown[]) => {
    const command = all[all.length - 1] as Command;
    const opts = all[all.length - 2] as Record<string, unknown>;
    const ctx = await contextOf(command, io);
    let path = template;
    params.forEach((p, i) => {
      path = path.replace(`{${p}}`, encodeURIComponent(String(all[i])));
    });
    const q = new URLSearchParams();
    for (const [flag, param] of spec.query ?? []) {
      const v = opts[camel(flag)];
      if (v !== undefined) q.set(param, String(v));
    }
    if (q.size) path += `?${q.toString()}`;
    let body: Record<string, unknown> | undefined;
    if (method !== "GET" && method !== "DELETE") {
      body = {};
      if (spec.bodyFile && typeof opts.file === "string")
        body = parseBody(await readInput(opts.file), opts.file);
      for (const b of spec.body ?? []) {
        const v = opts[camel(b.flag)];
        if (v !== undefined) body[b.field] = toValue(b, v);
      }
    }
    const answer = await send(ctx, method, path, body, spec.allPages);
    ctx.show(answer, () => human(answer, spec.columns, spec.keys));
  });
  return cmd;
}

function parseBody(text: string, file: string): Record<string, unknown> {
  try {
    return JSON.parse(text) as Record<string, unknown>;
  } catch (err) {
    throw new CliExit(2, `${file} is not JSON: ${(err as Error).message}`);
  }
}

function send(
  ctx: Ctx,
  method: string,
  path: string,
  body: unknown,
  allPages?: boolean,
): Promise<unknown> {
  if (method === "GET" && allPages) return ctx.api.all(path);
  return ctx.api.call(method, path, body);
}
