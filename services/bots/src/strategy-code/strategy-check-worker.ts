// A thread that type-checks and bundles strategies, so a check (tens to hundreds of milliseconds
// of CPU, more for hostile types) never holds the service's event loop.
import { parentPort } from "node:worker_threads";
import { checkStrategy, MA_CROSSOVER_EXAMPLE, type StrategyFile } from "@svc/strategy-sdk/check";

// Loading the compiler and parsing its ES lib once, before the first job: a check's deadline
// then measures that check, not the thread's start.
await checkStrategy([{ path: "strategy.ts", content: MA_CROSSOVER_EXAMPLE }]);
parentPort!.postMessage({ ready: true });

parentPort!.on("message", (job: { id: number; files: StrategyFile[] }) => {
  checkStrategy(job.files).then(
    (result) => parentPort!.postMessage({ id: job.id, result }),
    (err: Error) => parentPort!.postMessage({ id: job.id, error: err.message }),
  );
});
