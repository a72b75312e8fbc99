import type { ModelCall, ModelServer, ModelTensor } from "../sandbox/types.js";

/**
 * A session's models as its events recorded them (model_output): a replay's strategy gets the
 * answers the session got, in order, and no model runs again. A call the session did not make
 * (another model, or past the recorded ones) fails the replay's run.
 */
export class RecordedModels implements ModelServer {
  private next = 0;

  constructor(
    readonly names: readonly string[],
    private readonly recorded: readonly { model: string; outputs: Record<string, ModelTensor> }[],
  ) {}

  run(call: ModelCall): Promise<Record<string, ModelTensor>> {
    const r = this.recorded[this.next];
    if (!r || r.model !== call.model)
      return Promise.reject(
        Object.assign(
          new Error(
            `the session recorded no answer of model "${call.model}" at this call (${this.next + 1})`,
          ),
          { fatal: true },
        ),
      );
    this.next++;
    return Promise.resolve(r.outputs);
  }

  drain(): never[] {
    return [];
  }
}
