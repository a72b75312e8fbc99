import { useState } from "preact/hooks";
import { api, type ApiError } from "../api.js";
import { ErrorNote } from "../components/ErrorNote.js";
import { num, when } from "../format.js";
import { useLoad } from "../hooks.js";

/** The size the console reads a CSV up to; the platform bounds it too and says so (413). */
const MAX_BYTES = 8 * 1024 * 1024;

interface Dataset {
  name: string;
  data_source?: string;
  symbol?: string;
  timeframe?: string;
  first_bar_time?: string;
  last_bar_time?: string;
  /** int64: a string on the wire. */
  bar_count?: string | number;
  bundled?: boolean;
  created_by?: string;
}

export function Datasets() {
  const list = useLoad(() => api<{ items: Dataset[] }>("GET", "/datasets"), []);
  const [error, setError] = useState<ApiError | undefined>();
  const [note, setNote] = useState("");
  const [busy, setBusy] = useState(false);
  return (
    <>
      <h1 tabIndex={-1}>Datasets</h1>
      <p>
        OHLCV data a backtest or paper session can use as <code>csv:&lt;name&gt;</code>. The CSV has
        the header <code>timestamp,open,high,low,close,volume</code>; the platform names the line of
        the first error it finds.
      </p>
      <form
        class="panel grid"
        onSubmit={async (e) => {
          e.preventDefault();
          const f = new FormData(e.currentTarget);
          const file = f.get("file") as File | null;
          if (!file || file.size === 0) return setNote("Choose a CSV file.");
          if (file.size > MAX_BYTES)
            return setNote(`The file is larger than ${MAX_BYTES / 1048576} MiB.`);
          setBusy(true);
          try {
            const d = await api<Dataset>("POST", "/datasets", {
              name: String(f.get("name") ?? "").trim(),
              symbol: String(f.get("symbol") ?? "").trim(),
              timeframe: String(f.get("timeframe") ?? "").trim(),
              csv: await file.text(),
            });
            setError(undefined);
            setNote(`Uploaded ${d.name ?? ""}.`);
            list.reload();
          } catch (err) {
            setNote("");
            setError(err as ApiError);
          } finally {
            setBusy(false);
          }
        }}
      >
        <label for="ds-name">Name</label>
        <input
          id="ds-name"
          name="name"
          required
          pattern="^[a-z0-9][a-z0-9-]*$"
          aria-describedby="ds-name-help"
        />
        <p id="ds-name-help" class="help">
          Lower-case letters, digits and dashes.
        </p>
        <label for="ds-symbol">Symbol</label>
        <input id="ds-symbol" name="symbol" required placeholder="BTC-USD" />
        <label for="ds-timeframe">Timeframe</label>
        <input
          id="ds-timeframe"
          name="timeframe"
          required
          placeholder="1d"
          pattern="^[0-9]+(s|m|h|d)$"
        />
        <label for="ds-file">CSV file</label>
        <input id="ds-file" name="file" type="file" accept=".csv,text/csv" required />
        <div />
        <button type="submit" disabled={busy}>
          Upload
        </button>
      </form>
      <p aria-live="polite">{note}</p>
      <ErrorNote error={error} what="uploading" />
      <h2>Available</h2>
      <ErrorNote error={list.error} what="listing datasets" />
      <table>
        <thead>
          <tr>
            <th scope="col">Name</th>
            <th scope="col">Symbol</th>
            <th scope="col">Timeframe</th>
            <th scope="col">From</th>
            <th scope="col">To</th>
            <th scope="col">Bars</th>
            <th scope="col">Uploaded by</th>
          </tr>
        </thead>
        <tbody>
          {(list.data?.items ?? []).map((d) => (
            <tr key={d.name}>
              <td>
                <code>{d.data_source ?? `csv:${d.name}`}</code>
              </td>
              <td>{d.symbol ?? "—"}</td>
              <td>{d.timeframe ?? "—"}</td>
              <td>{when(d.first_bar_time)}</td>
              <td>{when(d.last_bar_time)}</td>
              <td>{num(Number(d.bar_count), 0)}</td>
              <td>{d.bundled ? "bundled" : d.created_by || "—"}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </>
  );
}
