/** ONNX models a strategy runs (docs/models.md): the parts tests and benches use. */
export { mlpOnnx, type MlpOptions } from "./mlp-onnx.js";
export { inspectModel, ModelFailure, ModelProcess, modelLimitsFromEnv } from "./model-host.js";
export type { ModelLimits } from "./model-host.js";
export { modelDigest, RunModels } from "./run-models.js";
