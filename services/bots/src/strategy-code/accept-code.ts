import { create } from "@bufbuild/protobuf";
import {
  StrategyCodeSchema,
  StrategyFileSchema,
  StrategyLanguage,
  type BotSpec,
  type StrategyCode,
} from "@svc/gen/svc/bots/v1/bots_pb.js";
import { formatDiagnostic, type CheckedStrategy, type StrategyFile } from "@svc/strategy-sdk/check";
import { Code, invalidField, svcError } from "@svc/lib/errors";
import type { DeclarationsProbe } from "./declarations-probe.js";
import { paramProblem } from "./param-problems.js";
import { checkPythonStrategy } from "./python-check.js";
import type { StrategyChecker } from "./strategy-checker.js";

/**
 * The files sent, or, for a spec read back and sent again (every content empty, as versions are
 * served, and its digest set), the stored source of that digest: renaming a bot keeps its code.
 */
async function sourceOf(
  code: StrategyCode,
  storedSource: (digest: string) => Promise<StrategyFile[] | undefined>,
): Promise<StrategyFile[]> {
  const sent = code.files.map((f) => ({ path: f.path, content: f.content }));
  if (!code.digest || sent.some((f) => f.content !== "")) return sent;
  const stored = await storedSource(code.digest);
  if (!stored)
    throw invalidField(
      "strategy.code.digest",
      `strategy.code.digest ${code.digest} names no stored strategy source, and the files came without content: send the files' content`,
    );
  return stored;
}

/** A spec whose code passed the checker, and what the check made of the code. */
export interface AcceptedSpec {
  spec: BotSpec;
  code?: CheckedStrategy;
}

/**
 * A strategy is a family or code, never both (and one of them when a strategy is sent). Code is
 * type-checked and bundled here, before any transaction opens: the spec that is stored names the
 * code by its digests and its files by path only, so the version's hash locks the exact source
 * and bundle, and the source itself lives content-addressed beside it. Its declared parameters
 * are read in the sandbox and strategy.parameters held to them, so a bad value is a 400 now
 * rather than a failed run later.
 */
export async function acceptStrategyCode(
  spec: BotSpec,
  checker: StrategyChecker,
  storedSource: (digest: string) => Promise<StrategyFile[] | undefined>,
  probe: DeclarationsProbe,
): Promise<AcceptedSpec> {
  const strategy = spec.strategy;
  if (!strategy) return { spec };
  if (strategy.family && strategy.code)
    throw invalidField(
      "strategy.code",
      "strategy.family and strategy.code are both set: a strategy is a built-in family or your own code, send one",
    );
  if (!strategy.code) {
    if (!strategy.family)
      throw invalidField(
        "strategy.family",
        "strategy needs a family (a built-in strategy, for example ma_crossover) or code (your own TypeScript)",
      );
    return { spec };
  }
  const files = await sourceOf(strategy.code, storedSource);
  // TypeScript is stored as the unset default, so naming it changes no spec_hash.
  const python = strategy.code.language === StrategyLanguage.PYTHON;
  const result = python ? await checkPythonStrategy(files) : await checker.check(files);
  if (!result.ok) {
    if (result.input) throw invalidField(result.input.field, result.input.message);
    const errors = result.diagnostics.map(formatDiagnostic);
    throw svcError(
      Code.InvalidArgument,
      "strategy_code_invalid",
      `the strategy does not check (${errors.length} error${errors.length === 1 ? "" : "s"}): ${errors.slice(0, 3).join("; ")}${errors.length > 3 ? "; ..." : ""}`,
      { field: "strategy.code", errors },
    );
  }
  // Python declarations are read by the Python SDK when a run starts (invalid_params then): the
  // probe loads TypeScript bundles only.
  if (!python)
    await holdParamsToDeclarations(
      result.bundle,
      (strategy.parameters ?? {}) as Record<string, unknown>,
      probe,
    );
  const code = create(StrategyCodeSchema, {
    files: result.files.map((f) => create(StrategyFileSchema, { path: f.path })),
    digest: result.digest,
    bundleDigest: result.bundleDigest,
    sdkVersion: result.sdkVersion,
    ...(python ? { language: StrategyLanguage.PYTHON } : {}),
  });
  return { spec: { ...spec, strategy: { ...strategy, code } }, code: result };
}

/**
 * Refuses parameters the code's declarations do not accept, and code whose own defaults break
 * its declarations. When the declarations cannot be read (the strategy's init fails or stalls
 * without data, or no sandbox runs here), the version is made and a run checks its parameters
 * when it starts, failing invalid_params, as it would anyway.
 */
async function holdParamsToDeclarations(
  bundle: string,
  given: Record<string, unknown>,
  probe: DeclarationsProbe,
): Promise<void> {
  const found = await probe(bundle);
  if (!found.ok) {
    if ("invalidDefaults" in found)
      throw svcError(
        Code.InvalidArgument,
        "invalid_parameter",
        `the strategy's declared defaults do not fit its own declarations: ${found.invalidDefaults}`,
        { field: "strategy.code" },
      );
    return;
  }
  const problem = paramProblem(found.declared, given);
  if (problem)
    throw svcError(Code.InvalidArgument, "invalid_parameter", problem.message, {
      field: problem.field,
      ...problem.details,
    });
}
