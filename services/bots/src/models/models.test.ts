import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { generateBars } from "../engine/synthetic-source.js";
import { blocksOf, driveBlocks } from "../sandbox/fixtures/drive.js";
import {
  bundleStrategyFile,
  startSandbox,
  StrategyFailure,
  type Sandbox,
} from "../sandbox/index.js";
import { inspectModel, ModelFailure, modelLimitsFromEnv } from "./model-host.js";
import { externalDataOnnx, hugeOutputOnnx, mlpOnnx } from "./mlp-onnx.js";
import { modelDigest, RunModels } from "./run-models.js";

const fixture = (name: string) =>
  fileURLToPath(new URL(`../sandbox/fixtures/${name}`, import.meta.url));
const LIMITS = modelLimitsFromEnv({});

// A fixed policy: 4 inputs, 3 hidden, 2 outputs.
const WEIGHTS = {
  w1: [0.9, -0.4, 0.3, 0.5, -0.7, 0.2, 0.1, 0.6, -0.3, 0.8, -0.5, 0.4],
  b1: [0.05, -0.02, 0.01],
  w2: [1.2, -0.6, -0.8, 0.9, 0.4, -1.1],
  b2: [0.03, -0.01],
};
const POLICY = mlpOnnx({ inputs: 4, hidden: 3, outputs: 2, weights: WEIGHTS });

/** The same network in plain float32 arithmetic, as ONNX Runtime computes it. */
function policyByHand(obs: number[]): [number, number] {
  const f = Math.fround;
  const h = [0, 1, 2].map((j) => {
    let s = 0;
    for (let i = 0; i < 4; i++) s = f(s + f(f(obs[i]!) * f(WEIGHTS.w1[i * 3 + j]!)));
    return Math.max(0, f(s + f(WEIGHTS.b1[j]!)));
  });
  const out = [0, 1].map((k) => {
    let s = 0;
    for (let j = 0; j < 3; j++) s = f(s + f(h[j]! * f(WEIGHTS.w2[j * 2 + k]!)));
    return f(s + f(WEIGHTS.b2[k]!));
  });
  return [out[0]!, out[1]!];
}

const open: { close(): void }[] = [];
const sandboxes: Sandbox[] = [];
afterEach(() => {
  for (const m of open.splice(0)) m.close();
  for (const s of sandboxes.splice(0)) s.kill();
});

describe("ONNX models, run outside the sandbox", () => {
  it("reads a model's inputs and outputs, and says why a file is not a model it can run", async () => {
    expect(await inspectModel(POLICY, LIMITS)).toEqual({
      inputs: [{ name: "obs", type: "float32", dims: ["batch", 4] }],
      outputs: [{ name: "action", type: "float32", dims: ["batch", 2] }],
    });
    await expect(inspectModel(Uint8Array.from([8, 1, 18, 200]), LIMITS)).rejects.toThrow(
      /protobuf parsing failed/,
    );
    const unsupported = mlpOnnx({ inputs: 4, hidden: 3, outputs: 2, unsupportedOp: "Teleport" });
    await expect(inspectModel(unsupported, LIMITS)).rejects.toThrow(
      /No Op registered for Teleport/,
    );
    // A model past its load time is stopped (its process killed), not waited for.
    const slow = inspectModel(POLICY, { ...LIMITS, loadTimeoutMs: 1 });
    await expect(slow).rejects.toThrow(/ran past its limit of 1 ms/);
    await expect(slow).rejects.toBeInstanceOf(ModelFailure);
  }, 60_000);

  it("refuses a model whose weights name a file (ONNX external data): no file of the host is read into it", async () => {
    // Absolute, relative to the process's directory, and climbing out of it: each is refused at
    // the upload's check, before any run could ask the model for the bytes.
    for (const location of ["/etc/passwd", "package.json", "../../../../etc/passwd"]) {
      const refused = await inspectModel(externalDataOnnx(location), LIMITS).catch(
        (e: unknown) => e as Error,
      );
      expect(refused, location).toBeInstanceOf(Error);
      expect((refused as Error).message, location).toMatch(
        /external data|model_path must not be empty/i,
      );
    }
  }, 60_000);

  it("refuses bytes that do not hash to the digest the version names", async () => {
    const other = mlpOnnx({ inputs: 4, hidden: 3, outputs: 2, seed: 9 });
    await expect(
      RunModels.start([{ name: "policy", digest: modelDigest(POLICY), bytes: other }], LIMITS),
    ).rejects.toThrow(/hash to sha256:.*the stored model was changed and is not run/);
  });

  it("a strategy's ctx.model runs the policy in the host, and decides as the network does", async () => {
    const bars = generateBars({ seed: 11, count: 400 });
    const models = await RunModels.start(
      [{ name: "policy", digest: modelDigest(POLICY), bytes: POLICY }],
      LIMITS,
      { record: true },
    );
    open.push(models);
    const bundle = await bundleStrategyFile(fixture("policy.strategy.ts"));
    const sandbox = await startSandbox({ bundle, symbols: ["BTC-USD"], models });
    sandboxes.push(sandbox);
    await sandbox.init();
    const { decisions, offsets } = await driveBlocks(sandbox, blocksOf(bars, 100));

    const expected: { at: number; weight: number }[] = [];
    let standing: number | undefined;
    for (let i = 4; i < bars.length; i++) {
      const obs = [1, 2, 3, 4].map(
        (k) => (bars.close[i - 4 + k]! / bars.close[i - 5 + k]! - 1) * 100,
      );
      const [a, b] = policyByHand(obs);
      const weight = a - b > 0 ? 1 : 0;
      if (weight !== standing) expected.push({ at: i, weight });
      standing = weight;
    }
    expect(expected.length).toBeGreaterThan(5);
    expect(offsets).toEqual(expected.map((e) => e.at));
    expect(decisions.map((d) => d.targets[0]!.target)).toEqual(
      expected.map((e) => ({ weight: e.weight })),
    );
    // Every inference is kept for the run's events, with the model's digest.
    const recorded = models.drain();
    expect(recorded).toHaveLength(bars.length - 4);
    expect(recorded[0]).toMatchObject({ model: "policy", digest: modelDigest(POLICY) });
    expect(recorded[0]!.outputs.action!.dims).toEqual([1, 2]);
  }, 60_000);

  it("a model past its time fails the run with strategy_timeout naming it", async () => {
    const models = await RunModels.start(
      [{ name: "policy", digest: modelDigest(POLICY), bytes: POLICY }],
      { ...LIMITS, callTimeoutMs: 1 },
    );
    open.push(models);
    const bundle = await bundleStrategyFile(fixture("policy.strategy.ts"));
    const sandbox = await startSandbox({ bundle, symbols: ["BTC-USD"], models });
    sandboxes.push(sandbox);
    await sandbox.init();
    const failure = await driveBlocks(sandbox, blocksOf(generateBars({ seed: 1, count: 50 }), 50))
      .then(() => undefined)
      .catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(StrategyFailure);
    expect(failure).toMatchObject({ code: "strategy_timeout" });
    expect((failure as Error).message).toMatch(/model "policy" ran past its limit of 1 ms/);
  }, 60_000);

  it("a strategy that loops on its model within a bar is stopped by the per-bar bound, not left to spin", async () => {
    const models = await RunModels.start(
      [{ name: "policy", digest: modelDigest(POLICY), bytes: POLICY }],
      LIMITS,
    );
    open.push(models);
    const bundle = await bundleStrategyFile(fixture("model-loop.strategy.ts"));
    const sandbox = await startSandbox({ bundle, symbols: ["BTC-USD"], models });
    sandboxes.push(sandbox);
    await sandbox.init();
    const failure = await driveBlocks(sandbox, blocksOf(generateBars({ seed: 1, count: 5 }), 5))
      .then(() => undefined)
      .catch((e: unknown) => e);
    expect(failure).toMatchObject({ code: "strategy_error" });
    expect((failure as Error).message).toMatch(/more than 64 model calls in one bar/);
    expect(models.calls).toBe(64);
  }, 60_000);

  it("a model that asks for 40 GB is contained: it fails in its own process, which ends, and nothing else does", async () => {
    const huge = hugeOutputOnnx(100_000);
    expect(huge.byteLength).toBeLessThan(1_000);
    // Loading may already fold the constant (and fail there); if not, its first run fails.
    const models = await RunModels.start(
      [{ name: "huge", digest: modelDigest(huge), bytes: huge }],
      LIMITS,
    ).catch((e: unknown) => e);
    if (models instanceof RunModels) {
      open.push(models);
      const ran = await models
        .run({ bar: 0, time: null, model: "huge", inputs: { obs: { dims: [1], data: [1] } } })
        .catch((e: unknown) => e);
      expect(ran).toBeInstanceOf(ModelFailure);
      expect(String(ran)).toMatch(/memory|allocat|ended/i);
    } else {
      expect(models).toBeInstanceOf(ModelFailure);
      expect(String(models)).toMatch(/memory|allocat|ended/i);
    }
    // The platform's own process is untouched, and a fresh model process runs the policy.
    expect(process.memoryUsage().rss).toBeLessThan(4 * 2 ** 30);
    const policy = await RunModels.start(
      [{ name: "policy", digest: modelDigest(POLICY), bytes: POLICY }],
      LIMITS,
    );
    open.push(policy);
    const out = await policy.run({
      bar: 0,
      time: null,
      model: "policy",
      inputs: { obs: { dims: [1, 4], data: [0, 0, 0, 0] } },
    });
    expect(out.action!.dims).toEqual([1, 2]);
  }, 60_000);
});
