import { useEffect, useMemo, useState } from "preact/hooks";
import { api, seg, type ApiError } from "../api.js";
import { ErrorNote } from "../components/ErrorNote.js";
import { Link } from "../components/Link.js";
import { enumWord } from "../format.js";
import { useLoad } from "../hooks.js";
import { navigate } from "../router.js";
import type { Bot, BotSummary } from "../types.js";

const PAGE = 50;
/** Detail calls in flight at once while the visible rows fill in. */
const IN_FLIGHT = 6;

/** Every bot, page by page (the API pages at 1,000 with `after`). */
async function allBots(): Promise<BotSummary[]> {
  const out: BotSummary[] = [];
  let after = "";
  for (;;) {
    const q = new URLSearchParams({ limit: "1000", ...(after ? { after } : {}) });
    const page = await api<{ items: BotSummary[] }>("GET", `/bots?${q.toString()}`);
    out.push(...page.items);
    if (page.items.length < 1000) return out;
    after = page.items[page.items.length - 1]!.id;
  }
}

export function BotsList() {
  const list = useLoad(allBots, [], 10_000);
  const [filter, setFilter] = useState("");
  const [page, setPage] = useState(0);
  const shown = useMemo(() => {
    const f = filter.trim().toLowerCase();
    const items = list.data ?? [];
    return f ? items.filter((b) => b.name.toLowerCase().includes(f) || b.slug.includes(f)) : items;
  }, [list.data, filter]);
  const pages = Math.max(1, Math.ceil(shown.length / PAGE));
  const rows = shown.slice(page * PAGE, page * PAGE + PAGE);
  const details = useDetails(rows);

  return (
    <>
      <h1 tabIndex={-1}>Bots</h1>
      <ErrorNote error={list.error} what="listing bots" />
      <NewBot onCreated={(slug) => navigate(`/console/bots/${seg(slug)}`)} />
      <div class="toolbar">
        <label for="bot-filter">Filter by name</label>{" "}
        <input
          id="bot-filter"
          type="search"
          value={filter}
          onInput={(e) => {
            setFilter(e.currentTarget.value);
            setPage(0);
          }}
        />{" "}
        <span aria-live="polite">
          {list.data ? `${shown.length} of ${list.data.length} bots` : "loading…"}
        </span>
      </div>
      <table id="bots-table" aria-busy={list.loading ? "true" : "false"}>
        <caption class="sr-only">Bots, their status, phase and kill-switch state</caption>
        <thead>
          <tr>
            <th scope="col">Name</th>
            <th scope="col">Kind</th>
            <th scope="col">Status</th>
            <th scope="col">Version</th>
            <th scope="col">Fleet</th>
            <th scope="col">Phase</th>
            <th scope="col">Kill switch</th>
          </tr>
        </thead>
        <tbody>
          {rows.map((b) => {
            const d = details[b.id];
            const engaged = d?.runtime?.kill_switch_engaged;
            const reason = d?.runtime?.kill_switch_reason;
            return (
              <tr key={b.id}>
                <th scope="row">
                  <Link href={`/console/bots/${seg(b.slug)}`}>{b.name}</Link>
                </th>
                <td>{enumWord(b.kind)}</td>
                <td>{enumWord(b.status)}</td>
                <td>{b.current_version}</td>
                <td>{d ? d.fleet || "—" : "…"}</td>
                <td>{d ? d.runtime?.phase || "—" : "…"}</td>
                <td>
                  {d === undefined ? (
                    "…"
                  ) : engaged ? (
                    <span class="badge bad" title={reason}>
                      engaged{reason ? `: ${reason}` : ""}
                    </span>
                  ) : (
                    <span class="badge ok">clear</span>
                  )}
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
      {pages > 1 ? (
        <nav class="pager" aria-label="Pages of bots">
          <button type="button" disabled={page === 0} onClick={() => setPage(page - 1)}>
            Previous
          </button>{" "}
          <span>
            page {page + 1} of {pages}
          </span>{" "}
          <button type="button" disabled={page >= pages - 1} onClick={() => setPage(page + 1)}>
            Next
          </button>
        </nav>
      ) : null}
    </>
  );
}

/**
 * Phase, fleet and kill-switch state live on each bot's detail (the list carries none of them):
 * asked for the visible rows only, a few at a time, refreshed every 5 s.
 */
function useDetails(rows: BotSummary[]): Record<string, Bot | null> {
  const [details, setDetails] = useState<Record<string, Bot | null>>({});
  const ids = rows.map((r) => r.id).join(",");
  useEffect(() => {
    let live = true;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const run = async () => {
      const queue = [...rows];
      const worker = async () => {
        for (let b = queue.shift(); b && live; b = queue.shift()) {
          const id = b.id;
          const bot = await api<Bot>("GET", `/bots/${seg(id)}`).catch(() => null);
          if (live) setDetails((d) => ({ ...d, [id]: bot }));
        }
      };
      await Promise.all(Array.from({ length: IN_FLIGHT }, worker));
      if (live) timer = setTimeout(run, 5_000);
    };
    void run();
    return () => {
      live = false;
      clearTimeout(timer);
    };
  }, [ids]);
  return details;
}

function NewBot({ onCreated }: { onCreated: (slug: string) => void }) {
  const [error, setError] = useState<ApiError | undefined>();
  const [busy, setBusy] = useState(false);
  return (
    <details class="panel">
      <summary>New bot</summary>
      <form
        class="grid"
        onSubmit={async (e) => {
          e.preventDefault();
          const f = new FormData(e.currentTarget);
          const text = (k: string) => String(f.get(k) ?? "").trim();
          setBusy(true);
          try {
            const bot = await api<Bot>("POST", "/bots", {
              name: text("name"),
              kind: "trading",
              ...(text("fleet") ? { fleet: text("fleet") } : {}),
              universe: { symbols: [text("symbol")], timeframe: text("timeframe") },
              strategy: {
                family: "ma_crossover",
                parameters: { fast: Number(text("fast")), slow: Number(text("slow")) },
              },
              engine: {
                initial_cash: Number(text("cash")),
                fee_bps: 5,
                slippage_bps: 2,
                position_size: 0.5,
              },
            });
            setError(undefined);
            onCreated(bot.slug);
          } catch (err) {
            setError(err as ApiError);
          } finally {
            setBusy(false);
          }
        }}
      >
        <label for="nb-name">Name</label>
        <input id="nb-name" name="name" required maxLength={200} />
        <label for="nb-fleet">Fleet</label>
        <input id="nb-fleet" name="fleet" placeholder="optional, e.g. majors" />
        <label for="nb-symbol">Symbol</label>
        <input id="nb-symbol" name="symbol" defaultValue="BTC-USD" required />
        <label for="nb-timeframe">Timeframe</label>
        <input id="nb-timeframe" name="timeframe" defaultValue="1d" required />
        <label for="nb-fast">Fast moving average (bars)</label>
        <input id="nb-fast" name="fast" type="number" min={1} defaultValue={10} required />
        <label for="nb-slow">Slow moving average (bars)</label>
        <input id="nb-slow" name="slow" type="number" min={2} defaultValue={30} required />
        <label for="nb-cash">Initial cash</label>
        <input id="nb-cash" name="cash" type="number" min={0} defaultValue={100000} required />
        <div />
        <button type="submit" disabled={busy}>
          Create (strategy: moving-average crossover)
        </button>
      </form>
      <ErrorNote error={error} what="creating the bot" />
    </details>
  );
}
