import type { Command } from "commander";
import { Api } from "./client.js";
import { CliExit, type Io } from "./io.js";
import { json } from "./output.js";

/** How an answer is printed: `table` for people, the API's answer as `json` or `yaml`. */
export type OutputFormat = "table" | "json" | "yaml";
export const OUTPUT_FORMATS: OutputFormat[] = ["table", "json", "yaml"];

/** The options every command takes (see `svc --help`). */
export interface GlobalOptions {
  url: string;
  token?: string;
  as?: string;
  json?: boolean;
  output?: OutputFormat;
  timeout: string;
}

/** What a command runs with: the API client, the output mode and the streams. */
export interface Ctx {
  api: Api;
  /** The answer is printed for a program (`-o json`, `-o yaml`, `--json`), not as a table. */
  json: boolean;
  output: OutputFormat;
  io: Io;
  /** Prints the API's answer as JSON or YAML under -o json|yaml, the human rendering otherwise. */
  show(answer: unknown, human: () => string): void;
  /** Prints a value in the machine format chosen (JSON unless -o yaml). */
  emit(value: unknown): void;
}

/** http://127.0.0.1 on SVC_PORT (the port `npm start` listens on), unless SVC_URL says where. */
export function defaultUrl(env: Io["env"]): string {
  return env.SVC_URL || env.SVC_API_URL || `http://127.0.0.1:${env.SVC_PORT || "8080"}`;
}

/** The output format asked for: --json is `-o json`, kept for the scripts that pass it. */
export function outputOf(cmd: Command): OutputFormat {
  const o = cmd.optsWithGlobals<GlobalOptions>();
  return o.json ? "json" : (o.output ?? "table");
}

/** JSON, or YAML when asked: the same value, so `-o yaml` is `-o json` in another syntax. */
export async function machine(value: unknown, output: OutputFormat): Promise<string> {
  if (output !== "yaml") return json(value);
  // yaml loads only when asked for: `svc --help` stays fast.
  const { stringify } = await import("yaml");
  return stringify(value ?? null, { lineWidth: 0 });
}

export async function contextOf(cmd: Command, io: Io): Promise<Ctx> {
  const o = cmd.optsWithGlobals<GlobalOptions>();
  const seconds = Number(o.timeout);
  if (!Number.isFinite(seconds) || seconds <= 0)
    throw new CliExit(2, `--timeout must be a number of seconds above 0, not ${o.timeout}`);
  const api = new Api({
    url: o.url,
    token: o.token ?? (io.env.SVC_TOKEN || undefined),
    as: o.as,
    timeoutMs: seconds * 1000,
  });
  const output = outputOf(cmd);
  // Loaded before the command runs, so show() and emit() stay synchronous.
  const yaml = output === "yaml" ? await import("yaml") : undefined;
  const render = (value: unknown) =>
    yaml ? yaml.stringify(value ?? null, { lineWidth: 0 }) : json(value);
  return {
    api,
    json: output !== "table",
    output,
    io,
    show(answer, human) {
      io.out(output === "table" ? human() : render(answer));
    },
    emit(value) {
      io.out(render(value));
    },
  };
}
