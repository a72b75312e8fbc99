import { spawn, type ChildProcess } from "node:child_process";
import { fileURLToPath } from "node:url";
import { findOnPath } from "../sandbox/isolation.js";
import { SETTINGS } from "@svc/lib/config";
import type { ModelRequest, TensorInfo, WireTensor } from "./model-wire.js";

// Plain CommonJS beside this file (the bundle points import.meta.url at the sources too).
const PROCESS_URL = new URL("./model-process.cjs", import.meta.url);

/** The bounds of a model process; every one acts (see SVC_MODEL_* in lib/src/config/settings.ts). */
export interface ModelLimits {
  /** Largest model kept (SVC_MODEL_MAX_BYTES). */
  maxBytes: number;
  loadTimeoutMs: number;
  callTimeoutMs: number;
  addressSpaceMb: number;
}

const ENV = {
  maxBytes: "SVC_MODEL_MAX_BYTES",
  loadTimeoutMs: "SVC_MODEL_LOAD_TIMEOUT_MS",
  callTimeoutMs: "SVC_MODEL_CALL_TIMEOUT_MS",
  addressSpaceMb: "SVC_MODEL_ADDRESS_SPACE_MB",
} as const;

/** The limits from SVC_MODEL_*, their declared defaults for what is unset. */
export function modelLimitsFromEnv(env: NodeJS.ProcessEnv = process.env): ModelLimits {
  const out = {} as ModelLimits;
  for (const [key, name] of Object.entries(ENV) as [
    keyof ModelLimits,
    (typeof ENV)[keyof typeof ENV],
  ][]) {
    const raw = env[name] || SETTINGS[name].default;
    const value = Number(raw);
    if (!/^\d+$/.test(raw) || !Number.isSafeInteger(value) || value < 1)
      throw new Error(`${name}=${JSON.stringify(raw)}: give a whole number`);
    out[key] = value;
  }
  return out;
}

type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;

/** A model failed in a way that is the model's doing (it does not load, or ran past its limits). */
export class ModelFailure extends Error {
  constructor(
    message: string,
    /** True when it ran out of time (the process was killed). */
    readonly timedOut = false,
    /** True when the model process is gone (killed, out of memory): no call after it runs. */
    readonly fatal = false,
  ) {
    super(message);
    this.name = "ModelFailure";
  }
}

/** The command that starts a model process: under prlimit's address-space limit when it is there. */
function command(limits: ModelLimits): { file: string; args: string[] } {
  const node = ["--no-warnings", fileURLToPath(PROCESS_URL)];
  const prlimit = findOnPath("prlimit");
  if (!prlimit) return { file: process.execPath, args: node };
  return {
    file: prlimit,
    args: [
      `--as=${limits.addressSpaceMb * 1024 * 1024}`,
      "--core=0",
      "--",
      process.execPath,
      ...node,
    ],
  };
}

/**
 * One process running a run's models (or checking one upload). Calls go one at a time; a call
 * past its time kills the process, and every call after that fails: a run whose model hung is
 * over.
 */
export class ModelProcess {
  private readonly child: ChildProcess;
  private nextId = 1;
  private readonly waiting = new Map<
    number,
    { resolve: (v: unknown) => void; reject: (e: Error) => void; timer: NodeJS.Timeout }
  >();
  private ended: Error | undefined;
  private stderr = "";

  constructor(private readonly limits: ModelLimits) {
    const { file, args } = command(limits);
    this.child = spawn(file, args, {
      stdio: ["ignore", "ignore", "pipe", "ipc"],
      serialization: "advanced",
      env: { PATH: process.env.PATH ?? "" },
    });
    this.child.stderr!.on("data", (c: Buffer) => {
      this.stderr = (this.stderr + c.toString("utf8")).slice(-4_096);
    });
    this.child.on("message", (m: { id: number; ok?: unknown; fail?: string }) => {
      const w = this.waiting.get(m.id);
      if (!w) return;
      this.waiting.delete(m.id);
      clearTimeout(w.timer);
      if (m.fail !== undefined) w.reject(new ModelFailure(m.fail));
      else w.resolve(m.ok);
    });
    this.child.on("exit", (code, signal) => {
      const tail = this.stderr.trim().split("\n").slice(-2).join(" | ").slice(0, 500);
      this.end(
        new ModelFailure(
          /memory|bad_alloc|Cannot allocate/i.test(this.stderr)
            ? `the model ran out of memory (SVC_MODEL_ADDRESS_SPACE_MB is ${this.limits.addressSpaceMb} MiB)`
            : `the model process ended (${signal ?? `exit code ${code}`})${tail ? `: ${tail}` : ""}`,
          false,
          true,
        ),
      );
    });
    this.child.on("error", (err) =>
      this.end(new ModelFailure(`the model process did not start: ${err.message}`, false, true)),
    );
  }

  private end(err: Error): void {
    this.ended ??= err;
    for (const [id, w] of this.waiting) {
      clearTimeout(w.timer);
      w.reject(this.ended);
      this.waiting.delete(id);
    }
  }

  private call<T>(
    request: DistributiveOmit<ModelRequest, "id">,
    timeoutMs: number,
    what: string,
  ): Promise<T> {
    if (this.ended) return Promise.reject(this.ended);
    const id = this.nextId++;
    return new Promise<T>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.end(
          new ModelFailure(
            `${what} ran past its limit of ${timeoutMs} ms and was stopped`,
            true,
            true,
          ),
        );
        this.kill();
      }, timeoutMs);
      this.waiting.set(id, { resolve: resolve as (v: unknown) => void, reject, timer });
      this.child.send({ ...request, id } as ModelRequest);
    });
  }

  /** Loads a model under `name`; answers its declared inputs and outputs. */
  load(name: string, bytes: Uint8Array): Promise<{ inputs: TensorInfo[]; outputs: TensorInfo[] }> {
    return this.call(
      { op: "load", name, bytes },
      this.limits.loadTimeoutMs,
      `loading model "${name}"`,
    );
  }

  /** Runs a loaded model once (inputs may hold a batch of rows). */
  async run(name: string, inputs: Record<string, WireTensor>): Promise<Record<string, WireTensor>> {
    const ok = await this.call<{ outputs: Record<string, WireTensor> }>(
      { op: "run", name, inputs },
      this.limits.callTimeoutMs,
      `model "${name}"`,
    );
    return ok.outputs;
  }

  kill(): void {
    if (this.child.exitCode === null && this.child.signalCode === null) this.child.kill("SIGKILL");
  }
}

/**
 * Reads an uploaded model's inputs and outputs by loading it in a model process of its own:
 * rejects with ModelFailure saying why it does not load (not ONNX, an operator the runtime does
 * not have, past its time or memory).
 */
export async function inspectModel(
  bytes: Uint8Array,
  limits: ModelLimits = modelLimitsFromEnv(),
): Promise<{ inputs: TensorInfo[]; outputs: TensorInfo[] }> {
  const p = new ModelProcess(limits);
  try {
    return await p.load("upload", bytes);
  } finally {
    p.kill();
  }
}
