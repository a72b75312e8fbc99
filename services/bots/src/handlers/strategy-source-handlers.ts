import { create } from "@bufbuild/protobuf";
import type { ServiceImpl } from "@connectrpc/connect";
import type { Kysely } from "kysely";
import {
  BotsService,
  StrategyCodeSchema,
  StrategySourceSchema,
} from "@svc/gen/svc/bots/v1/bots_pb.js";
import { Code, svcError } from "@svc/lib/errors";
import * as repo from "../store/bots.repository.js";
import { findStrategySource } from "../store/strategy-code.repository.js";
import type { BotsDatabase } from "../store/bots.table.js";
import { botNotFound } from "./bot-errors.js";
import { storedToSpec } from "./bot-mapping.js";

/** GET /bots/{bot_ref}/versions/{version}/strategy: a version's source, as it was sent. */
export function createStrategySourceHandlers(
  db: Kysely<BotsDatabase>,
): Pick<ServiceImpl<typeof BotsService>, "getStrategySource"> {
  return {
    async getStrategySource(req) {
      const bot = await repo.findBot(db, req.botRef);
      if (!bot) throw botNotFound(req.botRef);
      const version = await repo.findVersion(db, bot.id, req.version);
      if (!version)
        throw svcError(
          Code.NotFound,
          "version_not_found",
          `bot "${bot.slug}" has no version ${req.version} (its latest is ${bot.current_version})`,
          { bot_ref: req.botRef, version: req.version },
        );
      const digest = version.strategy_digest;
      const files = digest ? await findStrategySource(db, digest) : undefined;
      if (!digest || !files)
        throw svcError(
          Code.NotFound,
          "strategy_code_not_found",
          `version ${req.version} of bot "${bot.slug}" carries no strategy code: it runs the built-in family "${storedToSpec(version.spec).strategy?.family ?? ""}"`,
          { bot_ref: req.botRef, version: req.version },
        );
      const code = storedToSpec(version.spec).strategy?.code;
      return create(StrategySourceSchema, {
        version: version.version,
        code: create(StrategyCodeSchema, {
          files,
          digest,
          bundleDigest: code?.bundleDigest ?? version.bundle_digest ?? "",
          sdkVersion: code?.sdkVersion ?? "",
        }),
      });
    },
  };
}
