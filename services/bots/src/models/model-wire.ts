/** The messages between the host and its model process (model-process.cjs), and their tensors. */

/** A tensor as it crosses a process boundary: its dims and its values, row-major. */
export interface WireTensor {
  dims: number[];
  data: number[];
}

/** An input or output as the model declares it: a symbolic dim (a batch) is its name. */
export interface TensorInfo {
  name: string;
  /** float32, float64, int32, int64 (what the runtime accepts). */
  type: string;
  dims: (number | string)[];
}

export type ModelRequest =
  | { id: number; op: "load"; name: string; bytes: Uint8Array }
  | { id: number; op: "run"; name: string; inputs: Record<string, WireTensor> };

export type ModelResponse =
  | { ok: { inputs: TensorInfo[]; outputs: TensorInfo[] } }
  | { ok: { outputs: Record<string, WireTensor> } };
