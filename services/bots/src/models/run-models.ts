import { createHash } from "node:crypto";
import type { ModelCall, ModelServer, ModelTensor } from "../sandbox/types.js";
import { ModelFailure, ModelProcess, type ModelLimits } from "./model-host.js";

/** A model as a run gets it: its name in the spec, its digest and its bytes. */
export interface RunModel {
  name: string;
  digest: string;
  bytes: Uint8Array;
}

/** One inference as a paper session records it (a model_output event). */
export interface ModelOutputRecord {
  time: number | null;
  model: string;
  digest: string;
  outputs: Record<string, ModelTensor>;
}

/** "sha256:" and the hex SHA-256 of a model's bytes: its content address. */
export function modelDigest(bytes: Uint8Array): string {
  return `sha256:${createHash("sha256").update(bytes).digest("hex")}`;
}

/**
 * A run's models in their own process (outside the strategy's sandbox), serving the sandbox's
 * calls. Each model's bytes are checked against the digest the version names before it loads:
 * bytes that were swapped under a digest never run. With `record`, every answer is kept for the
 * run's events until drained (a paper session drains them each bar; a backtest only counts).
 */
export class RunModels implements ModelServer {
  readonly names: string[];
  private readonly digests = new Map<string, string>();
  private readonly process: ModelProcess;
  private recorded: ModelOutputRecord[] = [];
  /** Inferences served so far. */
  calls = 0;

  private constructor(
    models: readonly RunModel[],
    limits: ModelLimits,
    private readonly record: boolean,
  ) {
    this.names = models.map((m) => m.name);
    for (const m of models) this.digests.set(m.name, m.digest);
    this.process = new ModelProcess(limits);
  }

  /** Starts the process and loads every model; rejects (and ends the process) if one does not. */
  static async start(
    models: readonly RunModel[],
    limits: ModelLimits,
    o: { record?: boolean } = {},
  ): Promise<RunModels> {
    const run = new RunModels(models, limits, o.record ?? false);
    try {
      for (const m of models) {
        const actual = modelDigest(m.bytes);
        if (actual !== m.digest)
          throw new ModelFailure(
            `model "${m.name}": the bytes stored under ${m.digest} hash to ${actual}; the stored model was changed and is not run`,
          );
        await run.process.load(m.name, m.bytes);
      }
      return run;
    } catch (err) {
      run.close();
      throw err;
    }
  }

  async run(call: ModelCall): Promise<Record<string, ModelTensor>> {
    const outputs = await this.process.run(call.model, call.inputs);
    this.calls++;
    if (this.record)
      this.recorded.push({
        time: call.time,
        model: call.model,
        digest: this.digests.get(call.model) ?? "",
        outputs,
      });
    return outputs;
  }

  /** The answers kept since the last drain, in order. */
  drain(): ModelOutputRecord[] {
    const out = this.recorded;
    this.recorded = [];
    return out;
  }

  close(): void {
    this.process.kill();
  }
}
