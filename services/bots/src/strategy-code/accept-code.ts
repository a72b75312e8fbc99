import { create } from "@bufbuild/protobuf";
import {
  StrategyCodeSchema,
  StrategyFileSchema,
  type BotSpec,
} from "@svc/gen/svc/bots/v1/bots_pb.js";
import { formatDiagnostic, type CheckedStrategy } from "@svc/strategy-sdk/check";
import { Code, invalidField, svcError } from "@svc/lib/errors";
import type { StrategyChecker } from "./strategy-checker.js";

/** A spec whose code passed the checker, and what the check made of the code. */
export interface AcceptedSpec {
  spec: BotSpec;
  code?: CheckedStrategy;
}

/**
 * A strategy is a family or code, never both (and one of them when a strategy is sent). Code is
 * type-checked and bundled here, before any transaction opens: the spec that is stored names the
 * code by its digests and its files by path only, so the version's hash locks the exact source
 * and bundle, and the source itself lives content-addressed beside it.
 */
export async function acceptStrategyCode(
  spec: BotSpec,
  checker: StrategyChecker,
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
  const files = strategy.code.files.map((f) => ({ path: f.path, content: f.content }));
  const result = await checker.check(files);
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
  const code = create(StrategyCodeSchema, {
    files: result.files.map((f) => create(StrategyFileSchema, { path: f.path })),
    digest: result.digest,
    bundleDigest: result.bundleDigest,
    sdkVersion: result.sdkVersion,
  });
  return { spec: { ...spec, strategy: { ...strategy, code } }, code: result };
}
