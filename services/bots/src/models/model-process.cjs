// @ts-check
/**
 * The process that runs a run's ONNX models: started by the host (model-host.ts), outside the
 * strategy's sandbox, under its own address-space limit, and killed when a call runs past its
 * time. A model is data, not code, but a hostile one can still be huge or slow: it is contained
 * here, never in the service's own process. Talks over node's IPC channel (structured clone),
 * one request at a time. Plain CommonJS on purpose: it starts with `node` alone (no tsx, whose
 * WebAssembly cannot reserve its memory under the address-space limit).
 */
"use strict";
// eslint-disable-next-line @typescript-eslint/no-require-imports -- CommonJS on purpose (above)
const ort = require("onnxruntime-node");

/** @type {Map<string, import("onnxruntime-node").InferenceSession>} */
const sessions = new Map();

/** @type {Record<string, (data: ArrayLike<number>) => any>} */
const TYPED = {
  float32: (d) => Float32Array.from(d),
  float64: (d) => Float64Array.from(d),
  int32: (d) => Int32Array.from(d),
  int64: (d) => BigInt64Array.from(Array.from(d, (x) => BigInt(Math.trunc(x)))),
};

/** @param {readonly any[]} meta */
function describe(meta) {
  return meta.map((m) =>
    m.isTensor
      ? {
          name: m.name,
          type: m.type,
          dims: m.shape.map((/** @type {unknown} */ d) =>
            typeof d === "number" && d >= 0 ? d : String(d),
          ),
        }
      : { name: m.name, type: "non-tensor", dims: [] },
  );
}

/** @param {string} name @param {Uint8Array} bytes */
async function load(name, bytes) {
  // One thread each: a run's model shares the machine with every other run.
  const session = await ort.InferenceSession.create(bytes, {
    intraOpNumThreads: 1,
    interOpNumThreads: 1,
    graphOptimizationLevel: "all",
  });
  const inputs = describe(session.inputMetadata);
  const outputs = describe(session.outputMetadata);
  const unsupported = [...inputs, ...outputs].find((t) => !(t.type in TYPED));
  if (unsupported) {
    await session.release();
    throw new Error(
      `its ${inputs.includes(unsupported) ? "input" : "output"} "${unsupported.name}" is of type ${unsupported.type}: a model's inputs and outputs must be tensors of float32, float64, int32 or int64`,
    );
  }
  sessions.set(name, session);
  return { inputs, outputs };
}

/** @param {string} name @param {Record<string, { dims: number[]; data: number[] }>} given */
async function run(name, given) {
  const session = sessions.get(name);
  if (!session) throw new Error(`no model named "${name}" is loaded`);
  /** @type {Record<string, import("onnxruntime-node").Tensor>} */
  const feeds = {};
  for (const m of session.inputMetadata) {
    const t = given[m.name];
    if (!t) throw new Error(`model "${name}" needs input "${m.name}"`);
    const type = m.isTensor ? m.type : "float32";
    try {
      feeds[m.name] = new ort.Tensor(/** @type {any} */ (type), TYPED[type](t.data), t.dims);
    } catch (err) {
      throw new Error(`input "${m.name}": ${err instanceof Error ? err.message : String(err)}`);
    }
  }
  const extra = Object.keys(given).find((k) => !session.inputNames.includes(k));
  if (extra)
    throw new Error(
      `model "${name}" has no input "${extra}" (its inputs: ${session.inputNames.join(", ")})`,
    );
  const results = await session.run(feeds);
  /** @type {Record<string, { dims: number[]; data: number[] }>} */
  const outputs = {};
  for (const [key, tensor] of Object.entries(results))
    outputs[key] = {
      dims: [...tensor.dims],
      data: Array.from(/** @type {ArrayLike<number | bigint>} */ (tensor.data), Number),
    };
  return { outputs };
}

process.on("message", (/** @type {any} */ request) => {
  const answer =
    request.op === "load" ? load(request.name, request.bytes) : run(request.name, request.inputs);
  answer.then(
    (ok) => process.send?.({ id: request.id, ok }),
    (err) =>
      process.send?.({
        id: request.id,
        fail: String(err instanceof Error ? err.message : err).slice(0, 2_000),
      }),
  );
});
process.on("disconnect", () => process.exit(0));
