import type { Kysely } from "kysely";
import { StrategyLanguage, type BotSpec } from "@svc/gen/svc/bots/v1/bots_pb.js";
import { Code, invalidField, svcError } from "@svc/lib/errors";
import { missingModels } from "../store/models.repository.js";
import type { BotsDatabase } from "../store/bots.table.js";

/** The models a spec runs: name to digest, by name (those without a digest are labels). */
export function modelDigestsOf(spec: BotSpec | undefined): Record<string, string> {
  const entries = (spec?.models ?? [])
    .filter((m) => m.digest)
    .map((m) => [m.name, m.digest] as const)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return Object.fromEntries(entries);
}

/**
 * A spec's models, before its version is made: names unique (the strategy asks by name), every
 * digest one an upload stored, and a model that runs only beside strategy code (a built-in
 * family never asks for one).
 */
export async function acceptModels(db: Kysely<BotsDatabase>, spec: BotSpec): Promise<void> {
  const seen = new Set<string>();
  spec.models.forEach((m, i) => {
    if (seen.has(m.name))
      throw invalidField(
        `models[${i}].name`,
        `models[${i}].name "${m.name}" is used twice: give each model its own name`,
      );
    seen.add(m.name);
    if (m.digest && !spec.strategy?.code)
      throw invalidField(
        `models[${i}].digest`,
        `models[${i}] names an ONNX model (digest), which only strategy code runs (ctx.model); set strategy.code, or leave the digest out`,
      );
    if (m.digest && spec.strategy?.code?.language === StrategyLanguage.PYTHON)
      throw svcError(
        Code.Unimplemented,
        "not_implemented",
        `models[${i}]: the Python SDK has no ctx.model yet; ONNX models run in TypeScript strategies only`,
        { field: `models[${i}].digest` },
      );
  });
  const digests = spec.models.filter((m) => m.digest).map((m) => m.digest);
  const missing = await missingModels(db, digests);
  if (missing.length > 0) {
    const i = spec.models.findIndex((m) => m.digest === missing[0]);
    throw svcError(
      Code.InvalidArgument,
      "model_not_found",
      `models[${i}].digest ${missing[0]} names no stored model: upload the ONNX file with POST /models and use the digest it answers`,
      { field: `models[${i}].digest`, missing },
    );
  }
}
