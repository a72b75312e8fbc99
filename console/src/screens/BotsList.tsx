import { useMemo, useState } from "preact/hooks";
import { api, seg, type ApiError } from "../api.js";
import { ErrorNote } from "../components/ErrorNote.js";
import { KillSwitchBadge } from "../components/KillSwitchBadge.js";
import { Link } from "../components/Link.js";
import { enumWord } from "../format.js";
import { useLoad } from "../hooks.js";
import { navigate } from "../router.js";
import type { Bot, BotSummary } from "../types.js";

const PAGE = 50;

interface BotsPage {
  items: BotSummary[];
  next_page_token: string;
}

/**
 * One page of bots with their runtime (phase and kill switch), in one request: the API pages
 * with a token and reads the page's runtime in one batch, so the 100,000th bot costs what the
 * first does and no row waits on a call of its own.
 */
function botsPage(token: string, status: string, fleet: string): Promise<BotsPage> {
  const q = new URLSearchParams({ limit: String(PAGE), include_runtime: "true" });
  if (token) q.set("page_token", token);
  if (status) q.set("status", status);
  if (fleet) q.set("fleet", fleet);
  return api<BotsPage>("GET", `/bots?${q.toString()}`);
}

export function BotsList() {
  const [status, setStatus] = useState("");
  const [fleet, setFleet] = useState("");
  // The tokens of the pages walked so far: Previous goes back through them, Next adds one.
  const [tokens, setTokens] = useState<string[]>([""]);
  const token = tokens[tokens.length - 1]!;
  const list = useLoad(() => botsPage(token, status, fleet), [token, status, fleet], 5_000);
  const [filter, setFilter] = useState("");
  const rows = useMemo(() => {
    const f = filter.trim().toLowerCase();
    const items = list.data?.items ?? [];
    return f ? items.filter((b) => b.name.toLowerCase().includes(f) || b.slug.includes(f)) : items;
  }, [list.data, filter]);
  const next = list.data?.next_page_token ?? "";
  const restart = () => setTokens([""]);

  return (
    <>
      <h1 tabIndex={-1}>Bots</h1>
      <ErrorNote error={list.error} what="listing bots" />
      <NewBot onCreated={(slug) => navigate(`/console/bots/${seg(slug)}`)} />
      <div class="toolbar">
        <label for="bot-status">Only status</label>{" "}
        <select
          id="bot-status"
          value={status}
          onChange={(e) => {
            setStatus(e.currentTarget.value);
            restart();
          }}
        >
          <option value="">any</option>
          <option value="draft">draft</option>
          <option value="active">active</option>
          <option value="archived">archived</option>
        </select>{" "}
        <label for="bot-fleet">Only fleet</label>{" "}
        <input
          id="bot-fleet"
          type="search"
          placeholder="every fleet"
          value={fleet}
          onChange={(e) => {
            setFleet(e.currentTarget.value.trim());
            restart();
          }}
        />{" "}
        <label for="bot-filter">Filter this page by name</label>{" "}
        <input
          id="bot-filter"
          type="search"
          value={filter}
          onInput={(e) => setFilter(e.currentTarget.value)}
        />{" "}
        <span aria-live="polite">
          {list.data ? `${rows.length} of ${list.data.items.length} bots on this page` : "loading…"}
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
            return (
              <tr key={b.id}>
                <th scope="row">
                  <Link href={`/console/bots/${seg(b.slug)}`}>{b.name}</Link>
                </th>
                <td>{enumWord(b.kind)}</td>
                <td>{enumWord(b.status)}</td>
                <td>{b.current_version}</td>
                <td>{b.fleet || "—"}</td>
                <td>{b.runtime?.phase || "—"}</td>
                <td>
                  <KillSwitchBadge runtime={b.runtime} />
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
      {tokens.length > 1 || next ? (
        <nav class="pager" aria-label="Pages of bots">
          <button
            type="button"
            disabled={tokens.length === 1}
            onClick={() => setTokens(tokens.slice(0, -1))}
          >
            Previous
          </button>{" "}
          <span>page {tokens.length}</span>{" "}
          <button type="button" disabled={!next} onClick={() => setTokens([...tokens, next])}>
            Next
          </button>
        </nav>
      ) : null}
    </>
  );
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
