import { pino, type DestinationStream, type Logger } from "pino";
import { prettyLines } from "./pretty-lines.js";

export type { Logger };

/**
 * Logs as JSON, one object per line, so a log platform can index request ids and codes; or, for
 * a person at a terminal (`format` pretty, or auto with stdout a terminal), one readable line
 * per entry.
 *
 * Lines go to stdout unless `destination` is given (a test reading what was logged).
 *
 * @example const log = createLogger({ name: "bots", level: config.logLevel, format: config.logFormat });
 */
export function createLogger(opts: {
  name: string;
  level?: string;
  format?: "auto" | "json" | "pretty";
  destination?: DestinationStream;
}): Logger {
  const level = opts.level ?? "info";
  const options = {
    name: opts.name,
    level,
    // Secrets travel in these headers; a log line must never carry them.
    redact: {
      paths: ["authorization", "headers.authorization", "*.authorization"],
      censor: "[redacted]",
    },
  };
  const format = opts.format ?? "json";
  const pretty = format === "pretty" || (format === "auto" && Boolean(process.stdout.isTTY));
  if (pretty) return pino(options, prettyLines(opts.destination ?? process.stdout, level));
  return opts.destination ? pino(options, opts.destination) : pino(options);
}
