import { useMemo, useRef, useState } from "preact/hooks";
import { api, seg, type ApiError } from "../api.js";
import { Chart } from "../components/Chart.js";
import { Confirm } from "../components/Confirm.js";
import { ErrorNote } from "../components/ErrorNote.js";
import { KillSwitchBadge } from "../components/KillSwitchBadge.js";
import { RunFailure } from "../components/RunFailure.js";
import { StrategySource } from "../components/StrategySource.js";
import { enumWord, num, pct, when } from "../format.js";
import { useLoad } from "../hooks.js";
import type { Bot, BotEvent, BotVersion, Deployment } from "../types.js";
import { BacktestResults } from "./BacktestResults.js";
import { SweepPanel } from "./SweepPanel.js";

/** The token an approval in this tab handed out, offered to the paper-session form. */
export const tokenKey = (ref: string) => `svc.console.approved.${ref}`;

export function BotPage({ botRef }: { botRef: string }) {
  const r = seg(botRef);
  const bot = useLoad(() => api<Bot>("GET", `/bots/${r}`), [r], 3_000);
  const versions = useLoad(() => api<{ items: BotVersion[] }>("GET", `/bots/${r}/versions`), [r]);
  const deployments = useLoad(
    () => api<{ items: Deployment[] }>("GET", `/bots/${r}/deployments`),
    [r],
    2_000,
  );
  const items = deployments.data?.items ?? [];
  // Every finished backtest is a trial: N is asked again when one finishes.
  const finished = items.filter((d) => d.target === "backtest" && d.status === "success").length;
  const trials = useLoad(
    () => api<{ trial_count: number }>("GET", `/bots/${r}/trials`),
    [r, finished],
    10_000,
  );
  const backtests = items.filter((d) => d.target === "backtest");
  const paper = items.filter((d) => d.target === "paper");
  const b = bot.data;
  const [shownSource, setShownSource] = useState<number | undefined>();

  return (
    <>
      <h1 tabIndex={-1}>{b ? b.name : botRef}</h1>
      <ErrorNote error={bot.error} what="reading the bot" />
      {b ? (
        <dl class="facts">
          <dt>Slug</dt>
          <dd>
            <code>{b.slug}</code>
          </dd>
          <dt>Status</dt>
          <dd>{enumWord(b.status)}</dd>
          <dt>Fleet</dt>
          <dd>{b.fleet || "—"}</dd>
          <dt>Version</dt>
          <dd>
            {b.current_version} <code title="spec hash">{b.spec_hash.slice(0, 12)}…</code>
          </dd>
          <dt>Phase</dt>
          <dd id="bot-phase">{b.runtime?.phase || "—"}</dd>
          <dt>Kill switch</dt>
          <dd>
            <KillSwitchBadge runtime={b.runtime} />
          </dd>
          <dt>Trials (N)</dt>
          <dd>{trials.data ? trials.data.trial_count : "—"}</dd>
        </dl>
      ) : null}

      <section aria-labelledby="run-h">
        <h2 id="run-h">Run</h2>
        <div class="cols">
          <BacktestForm botRef={r} onStarted={deployments.reload} />
          <PaperForm botRef={botRef} paper={paper} onChanged={deployments.reload} />
        </div>
      </section>

      {paper.length > 0 ? <Live botRef={r} /> : null}

      <SweepPanel botRef={r} />

      <section aria-labelledby="dep-h">
        <h2 id="dep-h">Deployments</h2>
        <ErrorNote error={deployments.error} what="listing deployments" />
        <table>
          <thead>
            <tr>
              <th scope="col">Target</th>
              <th scope="col">Status</th>
              <th scope="col">Version</th>
              <th scope="col">Started</th>
              <th scope="col">Progress or result</th>
            </tr>
          </thead>
          <tbody>
            {items.map((d) => (
              <tr key={d.id} data-deployment={d.id}>
                <td>{enumWord(d.target)}</td>
                <td>
                  {enumWord(d.status)}
                  {d.parked ? " (parked by a kill switch)" : ""}
                </td>
                <td>{d.version}</td>
                <td>{when(d.created_at)}</td>
                <td>
                  {typeof d.result_summary?.error === "string" ? (
                    <RunFailure error={d.result_summary.error} />
                  ) : (
                    progressOrResult(d)
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </section>

      {backtests
        .filter((d) => d.status === "success")
        .slice(0, 3)
        .map((d, i) => (
          <BacktestResults key={d.id} botRef={r} deployment={d} open={i === 0} />
        ))}

      <section aria-labelledby="ver-h">
        <h2 id="ver-h">Versions</h2>
        <table>
          <thead>
            <tr>
              <th scope="col">Version</th>
              <th scope="col">Spec hash</th>
              <th scope="col">Created</th>
              <th scope="col">By</th>
              <th scope="col">Strategy</th>
            </tr>
          </thead>
          <tbody>
            {(versions.data?.items ?? []).map((v) => (
              <tr key={v.version}>
                <td>{v.version}</td>
                <td>
                  <code>{v.spec_hash}</code>
                </td>
                <td>{when(v.created_at)}</td>
                <td>{v.created_by || "—"}</td>
                <td>
                  {v.strategy_digest ? (
                    <button
                      type="button"
                      aria-expanded={shownSource === v.version}
                      aria-label={`${shownSource === v.version ? "Hide" : "Show"} source of version ${v.version}`}
                      onClick={() =>
                        setShownSource(shownSource === v.version ? undefined : v.version)
                      }
                    >
                      {shownSource === v.version ? "Hide source" : "Show source"}
                    </button>
                  ) : (
                    "family"
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
        {shownSource !== undefined ? (
          <StrategySource botRef={botRef} version={shownSource} />
        ) : null}
      </section>
    </>
  );
}

function progressOrResult(d: Deployment): string {
  const p = d.progress as
    | { bars_done?: string | number; bars_total?: string | number; remaining_s?: number }
    | null
    | undefined;
  if ((d.status === "running" || d.status === "pending") && p && Number(p.bars_total) > 0) {
    const left =
      Number(p.remaining_s) > 0 ? `, about ${Math.ceil(Number(p.remaining_s))} s left` : "";
    return `${num(Number(p.bars_done), 0)} of ${num(Number(p.bars_total), 0)} bars${left}`;
  }
  const s = d.result_summary;
  if (!s) return "—";
  if (typeof s.error === "string") return `error: ${s.error}`;
  if (s.totalReturn !== undefined || s.total_return !== undefined)
    return `return ${pct(s.totalReturn ?? s.total_return)}, Sharpe ${num(s.sharpe)}, ${num(s.trades, 0)} trades`;
  return "—";
}

function BacktestForm({ botRef, onStarted }: { botRef: string; onStarted: () => void }) {
  const [error, setError] = useState<ApiError | undefined>();
  const [note, setNote] = useState("");
  const datasets = useLoad(
    () => api<{ items: { name: string; data_source?: string }[] }>("GET", "/datasets"),
    [],
  );
  return (
    <form
      class="panel"
      aria-labelledby="bt-h"
      onSubmit={async (e) => {
        e.preventDefault();
        const source = String(new FormData(e.currentTarget).get("source") ?? "").trim();
        try {
          const d = await api<Deployment>("POST", `/bots/${botRef}/backtest`, {
            ...(source ? { data_source: source } : {}),
          });
          setError(undefined);
          setNote(`Backtest ${d.id} ${enumWord(d.status)}.`);
          onStarted();
        } catch (err) {
          setNote("");
          setError(err as ApiError);
        }
      }}
    >
      <h3 id="bt-h">Backtest</h3>
      <label for="bt-source">Data source</label>
      <input
        id="bt-source"
        name="source"
        list="bt-sources"
        defaultValue="csv:sample-btc-usd-1d"
        aria-describedby="bt-source-help"
      />
      <datalist id="bt-sources">
        {(datasets.data?.items ?? []).map((d) => (
          <option key={d.name} value={d.data_source ?? `csv:${d.name}`} />
        ))}
      </datalist>
      <p id="bt-source-help" class="help">
        <code>csv:&lt;dataset&gt;</code> or <code>synthetic:&lt;seed&gt;</code>
      </p>
      <button type="submit">Start backtest</button>
      <p aria-live="polite">{note}</p>
      <ErrorNote error={error} what="starting the backtest" />
    </form>
  );
}

function PaperForm(props: { botRef: string; paper: Deployment[]; onChanged: () => void }) {
  const r = seg(props.botRef);
  const [error, setError] = useState<ApiError | undefined>();
  const [confirmHalt, setConfirmHalt] = useState(false);
  const running = props.paper.find((d) => d.status === "running" || d.status === "pending");
  const act = async (fn: () => Promise<unknown>) => {
    try {
      await fn();
      setError(undefined);
      props.onChanged();
    } catch (err) {
      setError(err as ApiError);
    }
  };
  return (
    <form
      class="panel"
      aria-labelledby="paper-h"
      onSubmit={(e) => {
        e.preventDefault();
        const f = new FormData(e.currentTarget);
        void act(() =>
          api("POST", `/bots/${r}/paper/start`, {
            approved_promotion: String(f.get("token") ?? "").trim(),
            speed: Number(f.get("speed") ?? 5),
          }),
        );
      }}
    >
      <h3 id="paper-h">Paper session</h3>
      <label for="paper-token">ApprovedPromotion token</label>
      <textarea
        id="paper-token"
        name="token"
        rows={2}
        defaultValue={sessionStorage.getItem(tokenKey(props.botRef)) ?? ""}
        aria-describedby="paper-token-help"
      />
      <p id="paper-token-help" class="help">
        From an approved promotion request (the approvals screen fills it in for its approver).
      </p>
      <label for="paper-speed">Speed (bars per second)</label>
      <input id="paper-speed" name="speed" type="number" min={0} step="any" defaultValue={5} />
      <div class="actions">
        <button type="submit">Start paper session</button>
        {running ? (
          <button
            type="button"
            onClick={() =>
              void act(() => api("POST", `/bots/${r}/paper/stop/${seg(running.task_id)}`))
            }
          >
            Stop session
          </button>
        ) : null}
        <button type="button" class="danger" onClick={() => setConfirmHalt(true)}>
          Halt bot…
        </button>
      </div>
      <ErrorNote error={error} />
      <Confirm
        open={confirmHalt}
        title={`Halt ${props.botRef}?`}
        confirmLabel="Halt"
        onCancel={() => setConfirmHalt(false)}
        onConfirm={() => {
          setConfirmHalt(false);
          void act(() => api("POST", `/bots/${r}/halt`, { reason: "halted from the console" }));
        }}
      >
        <p>Every deployment of this bot stops. A halt by request is final.</p>
      </Confirm>
    </form>
  );
}

/** The event types the events route filters on (services/bots/src/runner/events.ts). */
const EVENT_TYPES = [
  "session_started",
  "phase_changed",
  "bar_received",
  "order_placed",
  "order_filled",
  "order_cancelled",
  "order_rejected",
  "position_changed",
  "risk_disabled",
  "risk_re_enabled",
  "reduce_only",
  "fail_safe",
  "halted",
];

/** Live paper PnL from the snapshot, sampled every 2 s, and the event stream after a cursor. */
function Live({ botRef }: { botRef: string }) {
  const samples = useRef<{ t: number[]; pnl: number[]; equity: number[] }>({
    t: [],
    pnl: [],
    equity: [],
  });
  const snap = useLoad(
    async () => {
      const s = await api<{ seq: string; metrics: Record<string, number | string> }>(
        "GET",
        `/bots/${botRef}/state/snapshot`,
      );
      const cur = samples.current;
      const pnl = Number(s.metrics.pnl);
      if (Number.isFinite(pnl)) {
        cur.t = [...cur.t, Date.now() / 1000].slice(-300);
        cur.pnl = [...cur.pnl, pnl].slice(-300);
      }
      return s;
    },
    [botRef],
    2_000,
  );
  const [type, setType] = useState("");
  const events = useRef<{ after: number; items: BotEvent[] }>({ after: 0, items: [] });
  const stream = useLoad(
    async () => {
      const ev = events.current;
      const q = new URLSearchParams({ after_seq: String(ev.after), limit: "200" });
      if (type) q.set("type", type);
      const page = await api<{ items: BotEvent[] }>("GET", `/bots/${botRef}/state/events?${q}`);
      if (page.items.length > 0) {
        ev.after = Number(page.items[page.items.length - 1]!.seq);
        ev.items = [...page.items.slice().reverse(), ...ev.items].slice(0, 100);
      }
      return ev.items;
    },
    [botRef, type],
    2_000,
  );
  const m = snap.data?.metrics ?? {};
  const series = useMemo(
    () => [{ label: "PnL", color: "#0b6e4f", values: samples.current.pnl }],
    [snap.data],
  );
  return (
    <section aria-labelledby="live-h">
      <h2 id="live-h">Live paper session</h2>
      <ErrorNote error={snap.error} what="reading the snapshot" />
      <dl class="facts" aria-live="polite">
        <dt>Phase</dt>
        <dd id="live-phase">{m.phase ?? "—"}</dd>
        <dt>Equity</dt>
        <dd>{num(m.equity)}</dd>
        <dt>PnL</dt>
        <dd id="live-pnl">{num(m.pnl)}</dd>
        <dt>Fills</dt>
        <dd>{num(m.fills, 0)}</dd>
        <dt>Bars</dt>
        <dd>{num(m.bars, 0)}</dd>
      </dl>
      <Chart
        title="Paper PnL (sampled every 2 s)"
        times={samples.current.t}
        series={series}
        height={160}
      />
      <h3>Events</h3>
      <label for="ev-type">Only events of type</label>{" "}
      <select
        id="ev-type"
        value={type}
        onChange={(e) => {
          events.current = { after: 0, items: [] };
          setType(e.currentTarget.value);
        }}
      >
        <option value="">every type</option>
        {EVENT_TYPES.map((t) => (
          <option key={t} value={t}>
            {t}
          </option>
        ))}
      </select>
      <ErrorNote error={stream.error} what="reading events" />
      <div class="scroll" tabIndex={0} aria-label="Latest events, newest first">
        <table id="events-table">
          <thead>
            <tr>
              <th scope="col">Seq</th>
              <th scope="col">Type</th>
              <th scope="col">At</th>
              <th scope="col">Data</th>
            </tr>
          </thead>
          <tbody>
            {(stream.data ?? []).map((e) => (
              <tr key={String(e.seq)}>
                <td>{String(e.seq)}</td>
                <td>{e.type}</td>
                <td>{when(e.occurred_at)}</td>
                <td>
                  <code>{e.data ? JSON.stringify(e.data).slice(0, 160) : ""}</code>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </section>
  );
}
