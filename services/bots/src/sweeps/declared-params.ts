import type { Kysely } from "kysely";
import { StrategyLanguage, type BotSpec } from "@svc/gen/svc/bots/v1/bots_pb.js";
import { Code, svcError } from "@svc/lib/errors";
import { resolveStrategy, STRATEGY_FAMILIES } from "../engine/index.js";
import { startPythonHost } from "../execution/kernel/python-host.js";
import {
  SandboxUnavailable,
  sandboxLimitsFromEnv,
  startSandbox,
  StrategyFailure,
} from "../sandbox/index.js";
import type { BotsDatabase } from "../store/bots.table.js";
import { findStrategyBundle } from "../store/strategy-code.repository.js";
import { SweepInputError, type DeclaredParam, type SweepValue } from "./sweep-plan.js";

/** What a sweep of a version varies: the declarations, the version's own values, its rules. */
export interface VersionParams {
  declared: Record<string, DeclaredParam>;
  base: Record<string, SweepValue>;
  check?: (params: Record<string, SweepValue>) => string | null;
}

/**
 * A version's declared parameters. A built-in family's come from the engine's registry; a code
 * strategy's are what its `defineStrategy({ params })` declares, read by loading the bundle once
 * in the sandbox (the only place its code runs) and asking its `init` answer.
 */
export async function versionParams(
  db: Kysely<BotsDatabase>,
  spec: BotSpec,
  bundleDigest: string | null,
  symbol: string,
): Promise<VersionParams> {
  const given = (spec.strategy?.parameters ?? {}) as Record<string, unknown>;
  if (spec.strategy?.code)
    return codeParams(db, bundleDigest, given, symbol, spec.strategy.code.language);
  const familyName = spec.strategy?.family ?? "";
  if (!STRATEGY_FAMILIES[familyName])
    throw new SweepInputError(
      "invalid_parameter",
      `the version runs no strategy the engine knows (${JSON.stringify(familyName)}); a sweep needs a built-in family or strategy code`,
      "version",
    );
  const { family, params } = resolveStrategy(familyName, given);
  const declared = Object.fromEntries(
    Object.entries(family.params).map(([name, p]) => [
      name,
      { type: p.type, ...(p.min === undefined ? {} : { min: p.min }) },
    ]),
  );
  return {
    declared,
    base: params,
    check: (p) => family.check(p as Record<string, number | boolean>)?.message ?? null,
  };
}

async function codeParams(
  db: Kysely<BotsDatabase>,
  bundleDigest: string | null,
  given: Record<string, unknown>,
  symbol: string,
  language: StrategyLanguage,
): Promise<VersionParams> {
  const bundle = bundleDigest ? await findStrategyBundle(db, bundleDigest) : undefined;
  if (bundle === undefined)
    throw new Error(`the bundle of the version's strategy code (${bundleDigest}) is not stored`);
  if (language === StrategyLanguage.PYTHON) return pythonParams(bundle, given, symbol);
  const sandbox = await startSandbox({
    bundle,
    params: given,
    symbols: [symbol],
    seed: 1,
    limits: sandboxLimitsFromEnv(),
  }).catch((err: unknown) => {
    if (err instanceof SandboxUnavailable) throw notRunnable(err);
    throw err;
  });
  try {
    const { declared, params } = await sandbox.init();
    return {
      declared: Object.fromEntries(
        Object.entries(declared).map(([name, p]) => [
          name,
          p.type === "enum"
            ? { type: "enum", values: p.values }
            : p.type === "boolean"
              ? { type: "boolean" }
              : { type: p.type, min: p.min, max: p.max },
        ]),
      ),
      base: params,
    };
  } catch (err) {
    if (err instanceof StrategyFailure) throw doesNotLoad(err);
    throw err;
  } finally {
    sandbox.kill();
  }
}

/**
 * A Python version's declarations, as its module declares them in `params` (the Python SDK's
 * param.int, param.number, param.boolean, param.choice), read from its init answer in the sandbox.
 */
async function pythonParams(
  source: string,
  given: Record<string, unknown>,
  symbol: string,
): Promise<VersionParams> {
  const host = await startPythonHost({
    source,
    symbol,
    params: given,
    seed: 1,
    limits: sandboxLimitsFromEnv(),
  }).catch((err: unknown) => {
    if (err instanceof SandboxUnavailable) throw notRunnable(err);
    if (err instanceof StrategyFailure) throw doesNotLoad(err);
    throw err;
  });
  try {
    const { declared, params } = host.resolved!;
    return {
      declared: Object.fromEntries(
        Object.entries(declared).map(([name, p]) => [
          name,
          p.type === "enum"
            ? { type: "enum", values: p.values ?? [] }
            : p.type === "boolean"
              ? { type: "boolean" }
              : {
                  type: p.type,
                  ...(p.min === undefined ? {} : { min: p.min }),
                  ...(p.max === undefined ? {} : { max: p.max }),
                },
        ]),
      ),
      base: params as Record<string, SweepValue>,
    };
  } finally {
    host.close();
  }
}

function notRunnable(err: SandboxUnavailable) {
  return svcError(
    Code.Unavailable,
    "strategy_code_not_runnable",
    `the strategy sandbox cannot start on this host (${err.message}); a sweep of strategy code reads its parameters there. Nothing was recorded`,
  );
}

function doesNotLoad(err: StrategyFailure) {
  return svcError(
    Code.InvalidArgument,
    "invalid_parameter",
    `the version's strategy code does not load with its parameters (${err.code}: ${err.message}); fix the version before sweeping it`,
    { field: "version" },
  );
}
