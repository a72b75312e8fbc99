import { create } from "@bufbuild/protobuf";
import { timestampDate } from "@bufbuild/protobuf/wkt";
import type { ServiceImpl } from "@connectrpc/connect";
import type { Kysely } from "kysely";
import { BotsService, PullDatasetResponseSchema } from "@svc/gen/svc/bots/v1/bots_pb.js";
import { principalOf } from "@svc/lib/auth";
import { Code, svcError } from "@svc/lib/errors";
import { BUNDLED_DATASETS, timeframeMs } from "../engine/index.js";
import { checkMarket, ohlcvPages, openExchange, PullFailed } from "../data/ccxt-pull.js";
import * as store from "../store/datasets.repository.js";
import type { BotsDatabase } from "../store/bots.table.js";
import { rowToDataset } from "./dataset-view.js";

type Handlers = Pick<ServiceImpl<typeof BotsService>, "pullDataset">;

export interface PullDeps {
  db: Kysely<BotsDatabase>;
  /** SVC_DATA_PULL_EXCHANGES: the exchanges allowed, each with its base URL override or none. */
  exchanges: Readonly<Record<string, string | undefined>>;
  /** How long one fetchOHLCV may take. */
  requestTimeoutMs?: number;
}

const DEFAULT_PAGES = 100;

/**
 * `svc data pull`: OHLCV bars from an exchange through ccxt into a data set, a page at a time.
 * Each page is committed on its own (store.appendBars keeps only bars after the last one
 * written), so a pull cut short by max_pages, a failure or a crash continues on the next call
 * from the last bar written, never writing one twice.
 */
export function createPullHandlers(deps: PullDeps): Handlers {
  return {
    async pullDataset(req, ctx) {
      if (!(req.exchange in deps.exchanges))
        throw svcError(
          Code.PermissionDenied,
          "exchange_not_allowed",
          Object.keys(deps.exchanges).length === 0
            ? "this deployment pulls from no exchange; an operator lists them in SVC_DATA_PULL_EXCHANGES"
            : `exchange must be one of ${Object.keys(deps.exchanges).join(", ")} (SVC_DATA_PULL_EXCHANGES)`,
          { field: "exchange" },
        );
      if (BUNDLED_DATASETS[req.name])
        throw svcError(Code.AlreadyExists, "dataset_exists", `${req.name} is bundled`, {
          field: "name",
        });
      const tfMs = timeframeMs(req.timeframe);
      const origin = `pull:${req.exchange}:${req.market}`;
      const ex = await openExchange(
        req.exchange,
        deps.exchanges[req.exchange],
        deps.requestTimeoutMs ?? 30_000,
      );
      await checkMarket(ex, req.market).catch((err: unknown) => {
        throw asApiError(err, 0);
      });
      const row = await store.ensureDataset(deps.db, {
        name: req.name,
        symbol: req.market,
        timeframe: req.timeframe,
        createdBy: principalOf(ctx).sub,
        origin,
        format: "csv",
      });
      if (row.origin !== origin || timeframeMs(row.timeframe) !== tfMs)
        throw svcError(
          Code.AlreadyExists,
          "dataset_exists",
          `${req.name} holds ${row.timeframe} bars from ${row.origin}; a pull continues only a data set it started (${origin}, ${req.timeframe}): choose another name`,
          { field: "name" },
        );
      const now = Date.now();
      const untilMs = Math.min(req.until ? timestampDate(req.until).getTime() : now, now);
      const count = Number(row.bar_count);
      const fromMs =
        count > 0
          ? new Date(row.last_bar_time).getTime() + tfMs
          : timestampDate(req.since!).getTime();
      const maxPages = req.maxPages || DEFAULT_PAGES;
      let pages = 0;
      let written = 0;
      let current = row;
      let complete = true;
      try {
        const q = { market: req.market, timeframe: req.timeframe, tfMs, fromMs, untilMs };
        for await (const page of ohlcvPages(ex, q)) {
          ctx.signal.throwIfAborted();
          const { row: after, added } = await store.appendBars(
            deps.db,
            req.name,
            req.market,
            tfMs,
            page,
          );
          current = after;
          written += added;
          if (++pages >= maxPages) {
            complete = new Date(after.last_bar_time).getTime() + tfMs > untilMs - tfMs;
            break;
          }
        }
      } catch (err) {
        throw asApiError(err, written);
      } finally {
        await ex.close?.();
      }
      if (written > 0 || !current.digest) current = await store.refreshDigest(deps.db, current);
      return create(PullDatasetResponseSchema, {
        dataset: rowToDataset(current),
        barsWritten: BigInt(written),
        pages,
        complete,
      });
    },
  };
}

function asApiError(err: unknown, written: number): unknown {
  if (!(err instanceof PullFailed)) return err;
  return svcError(
    err.reason === "refused" ? Code.InvalidArgument : Code.Unavailable,
    err.reason === "refused" ? "invalid_argument" : "exchange_unavailable",
    `${err.message}; ${written} bar(s) were written${written > 0 ? " and the next pull continues after them" : ""}`,
    { field: err.reason === "refused" ? "market" : "exchange", bars_written: written },
  );
}
