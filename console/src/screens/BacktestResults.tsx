import { useMemo, useState } from "preact/hooks";
import { api, seg } from "../api.js";
import { Chart } from "../components/Chart.js";
import { ErrorNote } from "../components/ErrorNote.js";
import { num, pct, when } from "../format.js";
import { useLoad } from "../hooks.js";
import type { Deployment } from "../types.js";
import { curveOf, tradeOf } from "./results.js";

const TRADES_PAGE = 50;

/** A finished backtest: its figures, equity curve, drawdown and trades. */
export function BacktestResults(props: { botRef: string; deployment: Deployment; open: boolean }) {
  const d = props.deployment;
  const base = `/bots/${props.botRef}/deployments/${seg(d.id)}`;
  const [open, setOpen] = useState(props.open);
  const s = d.result_summary ?? {};
  return (
    <section class="panel" aria-labelledby={`res-${d.id}`}>
      <h2 id={`res-${d.id}`}>Backtest of {when(d.created_at)}</h2>
      <dl class="facts">
        <dt>Return</dt>
        <dd>{pct(s.totalReturn ?? s.total_return)}</dd>
        <dt>PnL</dt>
        <dd>{num(s.pnl)}</dd>
        <dt>Sharpe</dt>
        <dd>{num(s.sharpe)}</dd>
        <dt>Sortino</dt>
        <dd>{num(s.sortino)}</dd>
        <dt>Max drawdown</dt>
        <dd>{pct(s.maxDrawdown ?? s.max_drawdown)}</dd>
        <dt>Trades</dt>
        <dd>{num(s.trades, 0)}</dd>
        <dt>Win rate</dt>
        <dd>{pct(s.winRate ?? s.win_rate)}</dd>
        <dt>Fees</dt>
        <dd>{num(s.fees)}</dd>
      </dl>
      {open ? (
        <Curves base={base} />
      ) : (
        <button type="button" onClick={() => setOpen(true)}>
          Show equity curve and trades
        </button>
      )}
    </section>
  );
}

function Curves({ base }: { base: string }) {
  const results = useLoad(() => api<Record<string, unknown>>("GET", `${base}/results`), [base]);
  const downsampled = results.data?.downsampled === true;
  const curve = useMemo(() => (results.data ? curveOf(results.data) : undefined), [results.data]);
  const equity = useMemo(
    () => (curve ? [{ label: "Equity", color: "#1f4e9c", values: curve.equity }] : []),
    [curve],
  );
  const drawdown = useMemo(
    () => (curve ? [{ label: "Drawdown %", color: "#a4161a", values: curve.drawdown }] : []),
    [curve],
  );
  return (
    <>
      {results.error ? (
        <ErrorNote error={results.error} what="reading the equity curve" />
      ) : curve ? (
        <div class="equity">
          <Chart
            title={`Equity${downsampled ? ` (one point per ${String(results.data?.bars_per_point)} bars, deepest drawdown kept)` : ""}`}
            times={curve.times}
            series={equity}
          />
          <Chart
            title="Drawdown from the running peak (%)"
            times={curve.times}
            series={drawdown}
            height={140}
          />
        </div>
      ) : (
        <p>Loading the equity curve…</p>
      )}
      <Trades base={base} />
    </>
  );
}

function Trades({ base }: { base: string }) {
  const [cursors, setCursors] = useState<string[]>([""]);
  const cursor = cursors[cursors.length - 1]!;
  const page = useLoad(() => {
    const q = new URLSearchParams({ page_size: String(TRADES_PAGE) });
    if (cursor) q.set("page_token", cursor);
    return api<{ items: Record<string, unknown>[]; next_page_token?: string; total?: number }>(
      "GET",
      `${base}/trades?${q.toString()}`,
    );
  }, [base, cursor]);
  const rows = (page.data?.items ?? []).map(tradeOf);
  const next = page.data?.next_page_token;
  const total = page.data?.total;
  return (
    <>
      <h3>Trades{total !== undefined ? ` (${total})` : ""}</h3>
      <ErrorNote error={page.error} what="reading the trades" />
      <table class="trades">
        <thead>
          <tr>
            <th scope="col">Side</th>
            <th scope="col">Entry</th>
            <th scope="col">Entry price</th>
            <th scope="col">Exit</th>
            <th scope="col">Exit price</th>
            <th scope="col">Size</th>
            <th scope="col">PnL</th>
            <th scope="col">Fees</th>
          </tr>
        </thead>
        <tbody>
          {rows.map((t, i) => (
            <tr key={i}>
              <td>{t.side}</td>
              <td>{t.entryTime}</td>
              <td>{num(t.entryPrice)}</td>
              <td>
                {t.exitTime}
                {t.closed === false ? " (open, marked)" : ""}
              </td>
              <td>{num(t.exitPrice)}</td>
              <td>{num(t.units, 6)}</td>
              <td class={t.pnl < 0 ? "neg" : "pos"}>{num(t.pnl)}</td>
              <td>{num(t.fees)}</td>
            </tr>
          ))}
        </tbody>
      </table>
      <div class="actions">
        <button
          type="button"
          disabled={cursors.length === 1}
          onClick={() => setCursors(cursors.slice(0, -1))}
        >
          Previous trades
        </button>
        <button
          type="button"
          disabled={!next}
          onClick={() => next && setCursors([...cursors, next])}
        >
          Next trades
        </button>
      </div>
    </>
  );
}
