// A thread that type-checks and bundles strategies, so a check (tens to hundreds of milliseconds
// of CPU, more for hostile types) never holds the service's event loop.
import { parentPort } from "node:worker_threads";
import { checkStrategy, type StrategyFile } from "@svc/strategy-sdk/check";

parentPort!.on("message", (job: { id: number; files: StrategyFile[] }) => {
  checkStrategy(job.files).then(
    (result) => parentPort!.postMessage({ id: job.id, result }),
    (err: Error) => parentPort!.postMessage({ id: job.id, error: err.message }),
  );
});
