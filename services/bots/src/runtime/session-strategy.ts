import { createHash } from "node:crypto";
import type { Kysely } from "kysely";
import { StrategyLanguage, type BotSpec } from "@svc/gen/svc/bots/v1/bots_pb.js";
import type { Logger } from "@svc/lib/telemetry";
import type { Bars } from "../engine/bars.js";
import type { GrpcStrategyHost } from "../execution/kernel/grpc-host.js";
import { startPythonHost } from "../execution/kernel/python-host.js";
import {
  SandboxHost,
  withBars,
  type SandboxHostSnapshot,
} from "../execution/kernel/sandbox-host.js";
import type { StrategyState } from "../runner/bot-runner.js";
import {
  sandboxLimitsFromEnv,
  startSandbox,
  StrategyFailure,
  type SandboxSnapshot,
} from "../sandbox/index.js";
import type { BotsDatabase } from "../store/bots.table.js";
import { findVersion } from "../store/bots.repository.js";
import { sessionStrategyState } from "../store/events.repository.js";
import { findStrategyBundle, findStrategySourceMap } from "../store/strategy-code.repository.js";
import { modelBytes } from "../store/models.repository.js";
import { modelDigestsOf } from "../models/accept-models.js";
import { ModelFailure, modelLimitsFromEnv } from "../models/model-host.js";
import { RunModels, type ModelOutputRecord } from "../models/run-models.js";
import type { ModelServer } from "../sandbox/types.js";

/**
 * A version's strategy code as the kernel's host: TypeScript in the sandbox's node, or Python's
 * gRPC server in the same sandbox. Both snapshot and resume alike (SandboxHostSnapshot).
 */
export type CodeHost = SandboxHost | GrpcStrategyHost;

/** A paper session's sandboxed strategy, started or resumed. */
export interface SessionStrategy {
  host: CodeHost;
  /** The target the position followed at the state resumed from (undefined: a new run). */
  resumeTarget?: number;
}

/** The seed of a session's Math.random: its task id's, so a session is the same run wherever. */
function seedOf(taskId: string): number {
  return createHash("sha256").update(taskId).digest().readUInt32LE(0);
}

/**
 * Starts a code version's strategy for a paper session in the sandbox, under the limits of
 * SVC_STRATEGY_*. A session that ran before resumes its strategy from the state it kept with
 * its last bar's events (`lastBar`): ctx.state, its lookback, its standing targets, its seeded
 * random numbers, and `init` runs again (the SDK's contract). Rejects with StrategyFailure when
 * the strategy cannot start (bad params, init threw or timed out).
 */
export async function startSessionStrategy(o: {
  db: Kysely<BotsDatabase>;
  log: Logger;
  taskId: string;
  botId: string;
  version: number;
  spec: BotSpec;
  symbol: string;
  /** The session's bars (a resumed strategy's lookback is rebuilt from them). */
  bars: Bars;
  /** The index of the last bar the session recorded, or undefined for a new session. */
  lastBar: number | undefined;
}): Promise<SessionStrategy> {
  const bundle = await bundleOf(o.db, o.botId, o.version);
  const sourceMap = await sourceMapOf(o.db, o.botId, o.version);
  const kept = o.lastBar === undefined ? undefined : await sessionStrategyState(o.db, o.taskId);
  let state: StrategyState | undefined;
  if (kept && kept.bar === o.lastBar) state = JSON.parse(kept.json) as StrategyState;
  else if (o.lastBar !== undefined)
    // Every bar's events are appended with the state as of that bar, so this is a session
    // recorded before strategy state was kept: its strategy starts afresh from the next bar.
    o.log.warn(
      { task_id: o.taskId, last_bar: o.lastBar, state_bar: kept?.bar ?? null },
      "no strategy state kept as of the session's last bar; its strategy starts afresh",
    );
  const snapshot = state?.host as SandboxHostSnapshot | undefined;
  const models = await runModelsOf(o.db, o.spec, { record: true }).catch((err: unknown) => {
    // A model that does not load (or whose bytes changed) fails the session as its strategy would.
    if (err instanceof ModelFailure) throw new StrategyFailure("strategy_error", err.message);
    throw err;
  });
  const host = await startCodeHost({
    bundle,
    ...(models ? { models } : {}),
    spec: o.spec,
    symbol: o.symbol,
    taskId: o.taskId,
    ...(sourceMap ? { sourceMap } : {}),
    ...(snapshot ? { restore: withBars(snapshot, o.symbol, o.bars, o.lastBar!) } : {}),
  }).catch((err: unknown) => {
    models?.close();
    throw err;
  });
  if (snapshot) host.restoreBooks(snapshot);
  return {
    host,
    ...(state && state.target !== null ? { resumeTarget: state.target } : {}),
  };
}

/** The bundle of a code version's strategy, from the store. */
export async function bundleOf(
  db: Kysely<BotsDatabase>,
  botId: string,
  version: number,
): Promise<string> {
  const row = await findVersion(db, botId, version);
  const bundle = row?.bundle_digest ? await findStrategyBundle(db, row.bundle_digest) : undefined;
  // A version is written with its bundle in one transaction: one missing is the store's fault.
  if (bundle === undefined)
    throw new Error(
      `version ${version} of bot ${botId}: the bundle of its strategy code is not stored`,
    );
  return bundle;
}

/** The source map kept with a version's bundle, if any (see mapStrategyStack). */
async function sourceMapOf(
  db: Kysely<BotsDatabase>,
  botId: string,
  version: number,
): Promise<string | undefined> {
  const row = await findVersion(db, botId, version);
  return row?.bundle_digest ? findStrategySourceMap(db, row.bundle_digest) : undefined;
}

/**
 * A session's strategy code in a started sandbox (init run) as the kernel's host (a Python
 * version's gRPC server, or the TypeScript bundle in the sandbox's node): seeded by its task id,
 * so a session's re-run from its first bar (replay's determinism check) draws the same random
 * numbers it drew. A Python version runs no model (its versions cannot name one).
 */
export async function startCodeHost(o: {
  bundle: string;
  spec: BotSpec;
  symbol: string;
  taskId: string;
  restore?: SandboxSnapshot;
  sourceMap?: string;
  /** The version's models, served outside the sandbox (ended with it). */
  models?: ModelServer & { drain(): ModelOutputRecord[]; close?(): void };
}): Promise<CodeHost> {
  if (o.spec.strategy?.code?.language === StrategyLanguage.PYTHON)
    return startPythonHost({
      source: o.bundle,
      symbol: o.symbol,
      params: (o.spec.strategy?.parameters ?? {}) as Record<string, unknown>,
      seed: seedOf(o.taskId),
      limits: sandboxLimitsFromEnv(),
      ...(o.restore ? { restore: o.restore } : {}),
    });
  const models = o.models;
  const sandbox = await startSandbox({
    ...(models ? { models } : {}),
    bundle: o.bundle,
    params: (o.spec.strategy?.parameters ?? {}) as Record<string, unknown>,
    symbols: [o.symbol],
    seed: seedOf(o.taskId),
    limits: sandboxLimitsFromEnv(),
    ...(o.restore ? { restore: o.restore } : {}),
    ...(o.sourceMap ? { sourceMap: o.sourceMap } : {}),
  });
  void sandbox.exited.then(() => models?.close?.());
  try {
    const host = new SandboxHost(sandbox, o.symbol, models);
    host.initialised(await sandbox.init());
    return host;
  } catch (err) {
    sandbox.kill();
    throw err;
  }
}

/**
 * The version's ONNX models, loaded for a run in their own process (undefined: it runs none).
 * Each is checked against its digest first: bytes changed in the store do not run.
 */
export async function runModelsOf(
  db: Kysely<BotsDatabase>,
  spec: BotSpec,
  o: { record: boolean },
): Promise<RunModels | undefined> {
  const digests = modelDigestsOf(spec);
  const names = Object.keys(digests);
  if (names.length === 0) return undefined;
  const bytes = await modelBytes(db, Object.values(digests));
  return RunModels.start(
    names.map((name) => ({
      name,
      digest: digests[name]!,
      bytes: bytes.get(digests[name]!) ?? new Uint8Array(0),
    })),
    modelLimitsFromEnv(),
    o,
  );
}
