import type { Command } from "commander";
import { Api } from "./client.js";
import { CliExit, type Io } from "./io.js";
import { json } from "./output.js";

/** The options every command takes (see `svc --help`). */
export interface GlobalOptions {
  url: string;
  token?: string;
  as?: string;
  json?: boolean;
  timeout: string;
}

/** What a command runs with: the API client, the output mode and the streams. */
export interface Ctx {
  api: Api;
  json: boolean;
  io: Io;
  /** Prints the API's answer as JSON under --json, the human rendering otherwise. */
  show(answer: unknown, human: () => string): void;
}

/** http://127.0.0.1 on SVC_PORT (the port `npm start` listens on), unless SVC_URL says where. */
export function defaultUrl(env: Io["env"]): string {
  return env.SVC_URL || env.SVC_API_URL || `http://127.0.0.1:${env.SVC_PORT || "8080"}`;
}

export function contextOf(cmd: Command, io: Io): Ctx {
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
  const asJson = Boolean(o.json);
  return {
    api,
    json: asJson,
    io,
    show(answer, human) {
      io.out(asJson ? json(answer) : human());
    },
  };
}
