import { prettyFactory, isColorSupported } from "pino-pretty";

interface Writable {
  write(text: string): unknown;
  isTTY?: boolean;
}

/**
 * A pino destination for a person at a terminal: one line per entry, coloured when the terminal
 * takes colour. A request reads as `GET /bots 200 3.1 ms`; a successful RPC the gateway already
 * reported is shown only at debug, so a request through all-in-one is one line, not two.
 */
export function prettyLines(out: Writable = process.stdout, level = "info") {
  const showRpcSuccess = level === "debug" || level === "trace";
  const prettify = prettyFactory({
    colorize: Boolean(out.isTTY) && isColorSupported,
    singleLine: true,
    translateTime: "SYS:HH:MM:ss.l",
    ignore: "pid,hostname",
  });
  return {
    write(line: string) {
      let entry: Record<string, unknown>;
      try {
        entry = JSON.parse(line) as Record<string, unknown>;
      } catch {
        out.write(line);
        return;
      }
      if (entry.msg === "rpc" && entry.code === "ok" && !showRpcSuccess) return;
      out.write(prettify(entry.msg === "http" ? requestLine(entry) : entry));
    },
  };
}

function requestLine(entry: Record<string, unknown>): Record<string, unknown> {
  const { method, url, status, ms, request_id, ...rest } = entry;
  return {
    ...rest,
    msg: `${String(method)} ${String(url)} ${String(status)} ${String(ms)} ms`,
    request_id,
  };
}
