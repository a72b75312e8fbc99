import { useState } from "preact/hooks";
import { api } from "../api.js";
import { ErrorNote } from "../components/ErrorNote.js";
import { enumWord, num, pct, when } from "../format.js";
import { useLoad } from "../hooks.js";

interface SweepRow {
  index: number;
  parameters: Record<string, unknown>;
  deployment_id: string;
  status: string;
  fold?: number;
  out_of_sample?: boolean;
  metrics?: Record<string, number>;
}

interface Sweep {
  id: string;
  status: string;
  version: number;
  created_at: string;
  runs_total: number;
  runs_succeeded?: number;
  runs_failed?: number;
  parameters: Array<{ name: string }>;
  results?: SweepRow[];
}

/** The metrics the table sorts by, as GET /bots/{ref}/sweeps/{id}?sort_by= takes them. */
const COLUMNS: Array<[metric: string, label: string, show: (v: unknown) => string]> = [
  ["sharpe", "Sharpe", (v) => num(v)],
  ["total_return", "Return", (v) => pct(v)],
  ["max_drawdown", "Max drawdown", (v) => pct(v)],
  ["trades", "Trades", (v) => num(v, 0)],
];

/**
 * The bot's latest parameter sweep (docs/sweeps.md): its progress, its results sorted by the
 * metric whose header was chosen, and a heatmap of that metric over the first two parameters
 * varied (the in-sample runs of the first fold, for a walk-forward).
 */
export function SweepPanel({ botRef }: { botRef: string }) {
  const list = useLoad(
    () => api<{ items: Sweep[] }>("GET", `/bots/${botRef}/sweeps?limit=1`),
    [botRef],
    5_000,
  );
  const latest = list.data?.items[0];
  const [sortBy, setSortBy] = useState("sharpe");
  const sweep = useLoad(
    () =>
      latest
        ? api<Sweep>("GET", `/bots/${botRef}/sweeps/${latest.id}?sort_by=${sortBy}`)
        : Promise.resolve(undefined),
    [botRef, latest?.id, latest?.runs_succeeded, sortBy],
  );
  if (!latest && !list.error) return null;
  const s = sweep.data;
  const rows = s?.results ?? [];
  return (
    <section aria-labelledby="sweep-h">
      <h2 id="sweep-h">Latest sweep</h2>
      <ErrorNote error={list.error ?? sweep.error} what="reading the sweep" />
      {latest ? (
        <p id="sweep-progress">
          {enumWord(latest.status)}: {latest.runs_succeeded ?? 0} of {latest.runs_total} runs done,{" "}
          {latest.runs_failed ?? 0} failed (version {latest.version}, {when(latest.created_at)})
        </p>
      ) : null}
      {s && s.parameters.length >= 2 ? <Heatmap sweep={s} metric={sortBy} /> : null}
      {rows.length > 0 ? (
        <table class="sweep-results">
          <thead>
            <tr>
              <th scope="col">#</th>
              <th scope="col">Parameters</th>
              <th scope="col">Status</th>
              {COLUMNS.map(([metric, label]) => (
                <th scope="col" key={metric} aria-sort={metric === sortBy ? "descending" : "none"}>
                  <button type="button" class="link" onClick={() => setSortBy(metric)}>
                    {label}
                  </button>
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {rows.map((r) => (
              <tr key={r.deployment_id} data-combination={r.index}>
                <td>
                  {r.fold ? `${r.fold}${r.out_of_sample ? " oos" : ""}/` : ""}
                  {r.index >= 0 ? r.index : ""}
                </td>
                <td>
                  <code>
                    {Object.entries(r.parameters)
                      .map(([k, v]) => `${k}=${String(v)}`)
                      .join(" ")}
                  </code>
                </td>
                <td>{enumWord(r.status)}</td>
                {COLUMNS.map(([metric, , show]) => (
                  <td key={metric}>{show(r.metrics?.[metric])}</td>
                ))}
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
    </section>
  );
}

/** The metric over the first two parameters varied, a cell per pair, best the darkest. */
function Heatmap({ sweep, metric }: { sweep: Sweep; metric: string }) {
  const [x, y] = sweep.parameters.map((p) => p.name) as [string, string];
  const cells = (sweep.results ?? []).filter((r) => (r.fold ?? 0) <= 1 && !r.out_of_sample);
  const key = (v: unknown) => String(v);
  const sorted = (name: string) =>
    [...new Set(cells.map((r) => r.parameters[name]))].sort((a, b) =>
      typeof a === "number" && typeof b === "number" ? a - b : key(a).localeCompare(key(b)),
    );
  const xs = sorted(x);
  const ys = sorted(y);
  const at = new Map(cells.map((r) => [`${key(r.parameters[x])}|${key(r.parameters[y])}`, r]));
  const values = cells
    .map((r) => r.metrics?.[metric])
    .filter((v): v is number => typeof v === "number");
  const lo = Math.min(...values);
  const hi = Math.max(...values);
  // Drawdown: the smallest is the best, so the scale turns round.
  const goodness = (v: number) =>
    hi === lo ? 1 : metric === "max_drawdown" ? (hi - v) / (hi - lo) : (v - lo) / (hi - lo);
  return (
    <table class="heatmap" aria-label={`${metric} by ${x} and ${y}`}>
      <thead>
        <tr>
          <th scope="col">
            {y} \ {x}
          </th>
          {xs.map((vx) => (
            <th scope="col" key={key(vx)}>
              {key(vx)}
            </th>
          ))}
        </tr>
      </thead>
      <tbody>
        {ys.map((vy) => (
          <tr key={key(vy)}>
            <th scope="row">{key(vy)}</th>
            {xs.map((vx) => {
              const v = at.get(`${key(vx)}|${key(vy)}`)?.metrics?.[metric];
              const g = typeof v === "number" ? goodness(v) : undefined;
              return (
                <td
                  key={key(vx)}
                  class="heat"
                  data-value={v ?? ""}
                  title={`${x}=${key(vx)} ${y}=${key(vy)}: ${v ?? "no figure"}`}
                  style={
                    g === undefined
                      ? undefined
                      : {
                          background: `hsl(215 60% ${Math.round(92 - g * 55)}%)`,
                          color: g > 0.6 ? "#fff" : "#111",
                        }
                  }
                >
                  {typeof v === "number" ? num(v) : "—"}
                </td>
              );
            })}
          </tr>
        ))}
      </tbody>
    </table>
  );
}
