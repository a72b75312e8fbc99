/**
 * Writes a small policy network (an MLP: MatMul, Add, Relu, MatMul, Add) as ONNX bytes, encoded
 * by hand from the ONNX schema (onnx.proto): the tests and the bench make their model files with
 * it instead of shipping binaries nobody can read. Weights are given, or drawn from a seed.
 */

/** Protobuf's base-128 varint (non-negative integers below 2^53). */
function varint(n: number): number[] {
  const out: number[] = [];
  let v = n;
  while (v >= 0x80) {
    out.push((v % 0x80) | 0x80);
    v = Math.floor(v / 0x80);
  }
  out.push(v);
  return out;
}

type Field = number[];
const key = (field: number, wire: number) => varint(field * 8 + wire);
const int = (field: number, n: number): Field => [...key(field, 0), ...varint(n)];
const bytes = (field: number, b: Uint8Array | number[]): Field => [
  ...key(field, 2),
  ...varint(b.length),
  ...b,
];
const str = (field: number, s: string): Field => bytes(field, [...new TextEncoder().encode(s)]);
const msg = (field: number, ...parts: Field[]): Field => bytes(field, parts.flat());

const FLOAT = 1;
const INT64 = 7;

function tensor(name: string, dims: number[], values: Float32Array | BigInt64Array): Field {
  const raw = new Uint8Array(values.buffer, values.byteOffset, values.byteLength);
  const type = values instanceof BigInt64Array ? INT64 : FLOAT;
  return msg(5, ...dims.map((d) => int(1, d)), int(2, type), str(8, name), bytes(9, raw));
}

/** A float tensor's value info; a string dim is symbolic (the batch), a number fixed. */
function valueInfo(field: number, name: string, dims: (number | string)[]): Field {
  const dim = (d: number | string) => msg(1, typeof d === "number" ? int(1, d) : str(2, d));
  return msg(field, str(1, name), msg(2, msg(1, int(1, FLOAT), msg(2, ...dims.map(dim)))));
}

function node(op: string, inputs: string[], outputs: string[], name: string): Field {
  return msg(
    1,
    ...inputs.map((i) => str(1, i)),
    ...outputs.map((o) => str(2, o)),
    str(3, name),
    str(4, op),
  );
}

/** A seeded generator (mulberry32): the same seed gives the same weights. */
function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export interface MlpOptions {
  /** Features in (the input "obs" is [batch, inputs]). */
  inputs: number;
  hidden: number;
  /** Values out (the output "action" is [batch, outputs]). */
  outputs: number;
  /** Seeds the weights when they are not given. */
  seed?: number;
  weights?: { w1: number[]; b1: number[]; w2: number[]; b2: number[] };
  /** An operator ONNX Runtime does not have, in place of Relu: a model the platform must refuse. */
  unsupportedOp?: string;
}

/** The ONNX bytes of obs -> MatMul, Add, Relu -> MatMul, Add -> action. */
export function mlpOnnx(o: MlpOptions): Uint8Array {
  const next = seeded(o.seed ?? 1);
  const draw = (n: number) => Array.from({ length: n }, () => next() * 2 - 1);
  const w = o.weights ?? {
    w1: draw(o.inputs * o.hidden),
    b1: draw(o.hidden),
    w2: draw(o.hidden * o.outputs),
    b2: draw(o.outputs),
  };
  const graph = msg(
    7,
    node("MatMul", ["obs", "w1"], ["h1"], "matmul1"),
    node("Add", ["h1", "b1"], ["h2"], "add1"),
    node(o.unsupportedOp ?? "Relu", ["h2"], ["h3"], "relu"),
    node("MatMul", ["h3", "w2"], ["o1"], "matmul2"),
    node("Add", ["o1", "b2"], ["action"], "add2"),
    str(2, "policy"),
    tensor("w1", [o.inputs, o.hidden], Float32Array.from(w.w1)),
    tensor("b1", [o.hidden], Float32Array.from(w.b1)),
    tensor("w2", [o.hidden, o.outputs], Float32Array.from(w.w2)),
    tensor("b2", [o.outputs], Float32Array.from(w.b2)),
    valueInfo(11, "obs", ["batch", o.inputs]),
    valueInfo(12, "action", ["batch", o.outputs]),
  );
  // ir_version 8, opset 13 of the default domain, then the graph.
  return Uint8Array.from([...int(1, 8), ...str(2, "svc-tests"), ...graph, ...msg(8, int(2, 13))]);
}

/**
 * A hostile model: a few hundred bytes that ask for an n x n float tensor of zeros
 * (ConstantOfShape) times the input: 4 n^2 bytes of memory (n 100,000: 40 GB) when it runs.
 */
export function hugeOutputOnnx(n: number): Uint8Array {
  const graph = msg(
    7,
    node("ConstantOfShape", ["shape"], ["zeros"], "zeros"),
    node("Mul", ["zeros", "obs"], ["out"], "mul"),
    str(2, "huge"),
    tensor("shape", [2], BigInt64Array.from([BigInt(n), BigInt(n)])),
    valueInfo(11, "obs", [1]),
    valueInfo(12, "out", [n, n]),
  );
  return Uint8Array.from([...int(1, 8), ...str(2, "svc-tests"), ...graph, ...msg(8, int(2, 13))]);
}

/**
 * A hostile model: its one initializer's data lies in a file outside the model (ONNX external
 * data, at `location`), and its output is that initializer as it is: a model that would hand the
 * file's bytes to whoever runs it.
 */
export function externalDataOnnx(location: string, floats = 8): Uint8Array {
  const EXTERNAL = 1;
  const entry = (k: string, v: string) => msg(13, str(1, k), str(2, v));
  const initializer = msg(
    5,
    int(1, floats),
    int(2, FLOAT),
    str(8, "secret"),
    entry("location", location),
    entry("length", String(floats * 4)),
    int(14, EXTERNAL),
  );
  const graph = msg(
    7,
    node("Identity", ["secret"], ["out"], "leak"),
    str(2, "external"),
    initializer,
    valueInfo(12, "out", [floats]),
  );
  return Uint8Array.from([...int(1, 8), ...str(2, "svc-tests"), ...graph, ...msg(8, int(2, 13))]);
}
