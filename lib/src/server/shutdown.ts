import type { Logger } from "pino";

/**
 * Runs the given closers once on SIGTERM or SIGINT (Kubernetes sends SIGTERM, a terminal sends
 * SIGINT), in order, then exits. A second signal exits at once.
 */
export function closeOnSignals(log: Logger, closers: Array<() => Promise<void>>): void {
  let closing = false;
  const onSignal = async (signal: string) => {
    if (closing) process.exit(1);
    closing = true;
    log.info({ signal }, "shutting down");
    for (const close of closers) {
      try {
        await close();
      } catch (err) {
        log.error({ err }, "error while shutting down");
      }
    }
    process.exit(0);
  };
  process.once("SIGTERM", () => void onSignal("SIGTERM"));
  process.once("SIGINT", () => void onSignal("SIGINT"));
}
