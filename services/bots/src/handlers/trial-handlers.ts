import { create, type JsonObject } from "@bufbuild/protobuf";
import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import type { ServiceImpl } from "@connectrpc/connect";
import type { Kysely } from "kysely";
import {
  ListBotTrialsResponseSchema,
  TrialSchema,
  type BotsService,
} from "@svc/gen/svc/bots/v1/bots_pb.js";
import * as repo from "../store/bots.repository.js";
import type { BotsDatabase } from "../store/bots.table.js";
import { listTrials } from "../store/trials.repository.js";
import { botNotFound } from "./bot-errors.js";

/** GET /bots/{bot_ref}/trials: the TrialLedger the promotion gates count N from. */
export function createTrialHandlers(
  db: Kysely<BotsDatabase>,
): Pick<ServiceImpl<typeof BotsService>, "listBotTrials"> {
  return {
    async listBotTrials(req) {
      const bot = await repo.findBot(db, req.botRef);
      if (!bot) throw botNotFound(req.botRef);
      const rows = await listTrials(db, bot.id);
      return create(ListBotTrialsResponseSchema, {
        trialCount: rows.length,
        items: rows.map((r) =>
          create(TrialSchema, {
            trialId: r.trial_id,
            version: r.version,
            specHash: r.spec_hash,
            strategyFamily: r.strategy_family,
            parameters: r.parameters as JsonObject,
            dataSource: r.data_source,
            sharpe: r.sharpe,
            observations: r.daily_returns.length,
            recordedAt: timestampFromDate(new Date(r.recorded_at)),
          }),
        ),
      });
    },
  };
}
