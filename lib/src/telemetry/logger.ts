import { pino, type Logger } from "pino";

export type { Logger };

/**
 * Structured JSON logs, one object per line, so a log platform can index request ids and codes.
 *
 * @example const log = createLogger({ name: "bots", level: config.logLevel });
 */
export function createLogger(opts: { name: string; level?: string }): Logger {
  return pino({
    name: opts.name,
    level: opts.level ?? "info",
    // Secrets travel in these headers; a log line must never carry them.
    redact: { paths: ["authorization", "headers.authorization", "*.authorization"], censor: "[redacted]" },
  });
}
