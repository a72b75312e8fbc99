import { create, type JsonObject } from "@bufbuild/protobuf";
import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import type { ServiceImpl } from "@connectrpc/connect";
import type { Kysely } from "kysely";
import { decodePageToken, pageOf, pageSize } from "@svc/lib/paging";
import {
  GetTrialReturnsResponseSchema,
  ListBotTrialsResponseSchema,
  TrialSchema,
  type BotsService,
} from "@svc/gen/svc/bots/v1/bots_pb.js";
import * as repo from "../store/bots.repository.js";
import type { BotsDatabase } from "../store/bots.table.js";
import { countTrials, listTrials, TRIAL_KEYS, trialReturns } from "../store/trials.repository.js";
import { botNotFound } from "./bot-errors.js";

/** GET /bots/{bot_ref}/trials: the TrialLedger the promotion gates count N from. */
export function createTrialHandlers(
  db: Kysely<BotsDatabase>,
): Pick<ServiceImpl<typeof BotsService>, "listBotTrials" | "getTrialReturns"> {
  return {
    /** The promotion gates' returns of the trials they judge (the service keeps what it read). */
    async getTrialReturns(req) {
      const rows = await trialReturns(db, req.trialIds);
      return create(GetTrialReturnsResponseSchema, {
        items: rows.map((r) => ({ trialId: r.trial_id, dailyReturns: r.daily_returns })),
      });
    },
    async listBotTrials(req) {
      const size = pageSize(req.limit);
      const bot = await repo.findBot(db, req.botRef);
      if (!bot) throw botNotFound(req.botRef);
      const list = { list: "bot_trials", filters: { bot: bot.id }, keys: TRIAL_KEYS };
      const after = decodePageToken(list, req.pageToken);
      const [rows, trialCount] = await Promise.all([
        listTrials(db, bot.id, { limit: size + 1, after }),
        countTrials(db, bot.id),
      ]);
      const page = pageOf(rows, size, list, (r) => [r.recorded_key, r.trial_id]);
      return create(ListBotTrialsResponseSchema, {
        trialCount,
        nextPageToken: page.nextPageToken,
        items: page.items.map((r) =>
          create(TrialSchema, {
            trialId: r.trial_id,
            version: r.version,
            specHash: r.spec_hash,
            strategyFamily: r.strategy_family,
            parameters: r.parameters as JsonObject,
            dataSource: r.data_source,
            sharpe: r.sharpe,
            observations: r.observations,
            recordedAt: timestampFromDate(new Date(r.recorded_at)),
            sweepId: r.sweep_id ?? "",
          }),
        ),
      });
    },
  };
}
