import { pino, type DestinationStream, type Logger } from "pino";

export type { Logger };

/**
 * Structured JSON logs, one object per line, so a log platform can index request ids and codes.
 *
 * Lines go to stdout unless `destination` is given (a test reading what was logged).
 *
 * @example const log = createLogger({ name: "bots", level: config.logLevel });
 */
export function createLogger(opts: {
  name: string;
  level?: string;
  destination?: DestinationStream;
}): Logger {
  const options = {
    name: opts.name,
    level: opts.level ?? "info",
    // Secrets travel in these headers; a log line must never carry them.
    redact: {
      paths: ["authorization", "headers.authorization", "*.authorization"],
      censor: "[redacted]",
    },
  };
  return opts.destination ? pino(options, opts.destination) : pino(options);
}
