import { useState } from "preact/hooks";
import { api, seg, type ApiError } from "../api.js";
import { Confirm } from "../components/Confirm.js";
import { ErrorNote } from "../components/ErrorNote.js";
import { enumWord, ms, when } from "../format.js";
import { useLoad } from "../hooks.js";
import type { AgentHalt, Drill, KillSwitch } from "../types.js";

/** The halt routes `svc halt-all` fans out to, each answering what it stopped. */
const FAN_OUT = [
  "/bots/halt-all",
  "/paper/stop-all",
  "/workflows/halt",
  "/rl/halt-all",
  "/agents/halt",
  "/quant-agents/halt",
];

/** Each agent switch: what it stops and the route that releases it. */
const AGENT_SWITCHES: Record<AgentHalt["scope"], { label: string; covers: string; route: string }> =
  {
    agents: { label: "agents", covers: "every research chat", route: "/agents/halt" },
    quant_agents: {
      label: "quant agents",
      covers: "research bots' chats",
      route: "/quant-agents/halt",
    },
  };

type Pending =
  | { kind: "engage"; name: string; spec: Record<string, string> }
  | { kind: "release"; name: string }
  | { kind: "release-agents"; scope: AgentHalt["scope"] }
  | { kind: "fan-out" }
  | { kind: "drill" };

export function KillSwitches() {
  const switches = useLoad(
    () => api<{ items: KillSwitch[]; key_store_unreachable: boolean }>("GET", "/kill-switches"),
    [],
    2_000,
  );
  const drills = useLoad(() => api<{ items: Drill[] }>("GET", "/kill-switch/drills"), [], 3_000);
  const agents = useLoad(() => api<{ items: AgentHalt[] }>("GET", "/agents/halt"), [], 2_000);
  const [pending, setPending] = useState<Pending | undefined>();
  const [error, setError] = useState<ApiError | undefined>();
  const [note, setNote] = useState("");
  // An agent switch's release answers beside its table, where the operator clicked.
  const [agentsOutcome, setAgentsOutcome] = useState<{ note: string; error?: ApiError }>({
    note: "",
  });
  const [fanOut, setFanOut] = useState<
    { route: string; status: number; ms: number; halted: string; error?: string }[]
  >([]);
  const [scope, setScope] = useState("platform");

  const run = async (p: Pending) => {
    setPending(undefined);
    setError(undefined);
    setAgentsOutcome({ note: "" });
    try {
      if (p.kind === "engage") {
        await api("PUT", `/kill-switches/${seg(p.name)}`, p.spec);
        setNote(`Engaged ${p.name}.`);
      } else if (p.kind === "release") {
        await api("DELETE", `/kill-switches/${seg(p.name)}`);
        setNote(`Released ${p.name}.`);
      } else if (p.kind === "release-agents") {
        const { route, label } = AGENT_SWITCHES[p.scope];
        const r = await api<{ released?: boolean }>(
          "DELETE",
          `${route}?reason=${seg("released from the console")}`,
        );
        setAgentsOutcome({
          note: r.released
            ? `Released the ${label} switch.`
            : `The ${label} switch was not engaged.`,
        });
      } else if (p.kind === "drill") {
        const d = await api<Drill>("POST", "/kill-switch/drills", {
          reason: "drill from the console",
        });
        setNote(`Drill ${d.id} ${enumWord(d.state)}.`);
      } else {
        setFanOut(
          await Promise.all(
            FAN_OUT.map(async (route) => {
              const t0 = performance.now();
              try {
                const r = await api<{ halted?: number }>("POST", route, {
                  reason: "halt-all from the console",
                });
                return {
                  route,
                  status: 200,
                  ms: performance.now() - t0,
                  halted: String(r.halted ?? 0),
                };
              } catch (err) {
                const e = err as ApiError;
                return {
                  route,
                  status: e.status,
                  ms: performance.now() - t0,
                  halted: "—",
                  error: `${e.code}: ${e.message}`,
                };
              }
            }),
          ),
        );
        setNote("");
      }
      switches.reload();
      drills.reload();
      agents.reload();
    } catch (err) {
      setNote("");
      if (p.kind === "release-agents") setAgentsOutcome({ note: "", error: err as ApiError });
      else setError(err as ApiError);
    }
  };

  const items = switches.data?.items ?? [];
  return (
    <>
      <h1 tabIndex={-1}>Kill switch</h1>
      <ErrorNote error={switches.error} what="listing kill switches" />
      {switches.data?.key_store_unreachable ? (
        <p class="error" role="alert">
          The key-value store does not answer: key states are unknown.
        </p>
      ) : null}
      <section aria-labelledby="ks-now">
        <h2 id="ks-now">Switches</h2>
        {items.length === 0 ? <p id="ks-none">No switch is engaged.</p> : null}
        <table id="ks-table" hidden={items.length === 0}>
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Scope</th>
              <th scope="col">Target</th>
              <th scope="col">Mode</th>
              <th scope="col">Reason</th>
              <th scope="col">Engaged</th>
              <th scope="col">Key</th>
              <th scope="col">
                <span class="sr-only">Release</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {items.map((k) => (
              <tr key={k.metadata.name}>
                <td>
                  <code>{k.metadata.name}</code>
                </td>
                <td>{enumWord(k.spec.scope)}</td>
                <td>{k.spec.target}</td>
                <td>{enumWord(k.spec.mode)}</td>
                <td>{k.spec.reason || "—"}</td>
                <td>
                  {k.status.engaged ? "engaged" : "released"} {when(k.status.engaged_at)}
                  {k.status.engaged_by ? ` by ${k.status.engaged_by}` : ""}
                </td>
                <td>{k.status.key_state || "—"}</td>
                <td>
                  <button
                    type="button"
                    onClick={() => setPending({ kind: "release", name: k.metadata.name })}
                  >
                    Release {k.metadata.name}
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </section>

      <section aria-labelledby="ks-agents">
        <h2 id="ks-agents">Agent switches</h2>
        <p>
          Engaged by <em>Halt all</em>, <code>svc halt-all</code>, <code>POST /agents/halt</code>{" "}
          and <code>POST /quant-agents/halt</code>: chats they cover stop and no new one starts
          until they are released here.
        </p>
        <ErrorNote error={agents.error} what="reading the agent switches" />
        <table id="agents-table">
          <thead>
            <tr>
              <th scope="col">Switch</th>
              <th scope="col">Stops</th>
              <th scope="col">State</th>
              <th scope="col">Reason</th>
              <th scope="col">Engaged</th>
              <th scope="col">
                <span class="sr-only">Release</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {(agents.data?.items ?? []).map((a) => (
              <tr key={a.scope} data-agent-switch={a.scope}>
                <td>
                  {AGENT_SWITCHES[a.scope].label}
                  <br />
                  <code class="key">{a.key}</code>
                </td>
                <td>{AGENT_SWITCHES[a.scope].covers}</td>
                <td>
                  {a.engaged ? (
                    <span class="badge bad">engaged</span>
                  ) : (
                    <span class="badge ok">clear</span>
                  )}
                </td>
                <td>{a.engaged ? a.reason || "—" : "—"}</td>
                <td>
                  {a.engaged
                    ? `${when(a.engaged_at)}${a.engaged_by ? ` by ${a.engaged_by}` : ""}`
                    : "—"}
                </td>
                <td>
                  {a.engaged ? (
                    <button
                      type="button"
                      onClick={() => setPending({ kind: "release-agents", scope: a.scope })}
                    >
                      Release {AGENT_SWITCHES[a.scope].label}
                    </button>
                  ) : null}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
        <p aria-live="polite" id="agents-note">
          {agentsOutcome.note}
        </p>
        <ErrorNote error={agentsOutcome.error} what="releasing the agent switch" />
      </section>

      <section aria-labelledby="ks-engage">
        <h2 id="ks-engage">Engage</h2>
        <form
          class="panel grid"
          onSubmit={(e) => {
            e.preventDefault();
            const f = new FormData(e.currentTarget);
            const text = (k: string) => String(f.get(k) ?? "").trim();
            const target = scope === "platform" ? "platform" : text("target");
            const name =
              text("name") ||
              `console-${scope}-${target}`.toLowerCase().replace(/[^a-z0-9.-]/g, "-");
            setPending({
              kind: "engage",
              name,
              spec: {
                scope,
                target,
                mode: text("mode"),
                reason: text("reason"),
                ...(text("ttl") ? { ttl: text("ttl") } : {}),
              },
            });
          }}
        >
          <label for="ks-scope">Scope</label>
          <select
            id="ks-scope"
            name="scope"
            value={scope}
            onChange={(e) => setScope(e.currentTarget.value)}
          >
            <option value="platform">platform</option>
            <option value="fleet">fleet</option>
            <option value="bot">bot</option>
          </select>
          <label for="ks-target">Target</label>
          <input
            id="ks-target"
            name="target"
            disabled={scope === "platform"}
            placeholder={
              scope === "platform" ? "platform" : scope === "fleet" ? "fleet name" : "bot slug"
            }
            required={scope !== "platform"}
          />
          <label for="ks-mode">Mode</label>
          <select id="ks-mode" name="mode">
            <option value="freeze">freeze (no new orders, positions kept)</option>
            <option value="cancel" selected>
              cancel (cancel open orders)
            </option>
            <option value="flatten">flatten (close positions)</option>
          </select>
          <label for="ks-reason">Reason</label>
          <input id="ks-reason" name="reason" required maxLength={2000} />
          <label for="ks-ttl">Lapses after</label>
          <input
            id="ks-ttl"
            name="ttl"
            placeholder="e.g. 4h; empty: until released"
            pattern="^([0-9]+(h|m|s))+$"
          />
          <label for="ks-name">Name</label>
          <input id="ks-name" name="name" placeholder="defaults to console-<scope>-<target>" />
          <div />
          <button type="submit" class="danger">
            Engage…
          </button>
        </form>
        <p aria-live="polite" id="ks-note">
          {note}
        </p>
        <ErrorNote error={error} />
      </section>

      <section aria-labelledby="ks-fan">
        <h2 id="ks-fan">Halt everything</h2>
        <p>Calls every halt route at once and shows what each stopped, and how long it took.</p>
        <button type="button" class="danger" onClick={() => setPending({ kind: "fan-out" })}>
          Halt all…
        </button>
        {fanOut.length > 0 ? (
          <table id="fan-out-table">
            <thead>
              <tr>
                <th scope="col">Route</th>
                <th scope="col">Status</th>
                <th scope="col">Halted</th>
                <th scope="col">Time</th>
                <th scope="col">Error</th>
              </tr>
            </thead>
            <tbody>
              {fanOut.map((f) => (
                <tr key={f.route}>
                  <td>
                    <code>POST {f.route}</code>
                  </td>
                  <td>{f.status}</td>
                  <td>{f.halted}</td>
                  <td>{ms(f.ms)}</td>
                  <td>{f.error ?? ""}</td>
                </tr>
              ))}
            </tbody>
          </table>
        ) : null}
      </section>

      <section aria-labelledby="ks-drills">
        <h2 id="ks-drills">Drills</h2>
        <button type="button" onClick={() => setPending({ kind: "drill" })}>
          Run a drill…
        </button>
        <ErrorNote error={drills.error} what="listing drills" />
        <table id="drills-table">
          <thead>
            <tr>
              <th scope="col">Started</th>
              <th scope="col">State</th>
              <th scope="col">Verdict</th>
              <th scope="col">Bots</th>
              <th scope="col">Draining p50</th>
              <th scope="col">Draining max</th>
              <th scope="col">Stopped max</th>
              <th scope="col">All restarted</th>
              <th scope="col">Note</th>
            </tr>
          </thead>
          <tbody>
            {(drills.data?.items ?? []).map((d) => (
              <tr key={d.id}>
                <td>{when(d.started_at)}</td>
                <td>{enumWord(d.state)}</td>
                <td>{d.verdict ? enumWord(d.verdict) : "—"}</td>
                <td>{d.bots}</td>
                <td>{ms(d.draining_p50_ms)}</td>
                <td>{ms(d.draining_max_ms)}</td>
                <td>{ms(d.stopped_max_ms)}</td>
                <td>{d.all_restarted ? "yes" : "no"}</td>
                <td>
                  {d.note ||
                    d.per_bot
                      .map((b) => `${b.bot_slug}: ${ms(b.draining_ms)} / ${ms(b.stopped_ms)}`)
                      .join("; ")}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </section>

      <Confirm
        open={pending !== undefined}
        title={
          pending?.kind === "engage"
            ? `Engage ${pending.spec.scope} switch on ${pending.spec.target}?`
            : pending?.kind === "release"
              ? `Release ${pending.name}?`
              : pending?.kind === "release-agents"
                ? `Release the ${AGENT_SWITCHES[pending.scope].label} switch?`
                : pending?.kind === "drill"
                  ? "Run a kill-switch drill?"
                  : "Halt everything?"
        }
        confirmLabel={
          pending?.kind === "release" || pending?.kind === "release-agents"
            ? "Release"
            : pending?.kind === "drill"
              ? "Run drill"
              : pending?.kind === "engage"
                ? "Engage"
                : "Halt all"
        }
        onCancel={() => setPending(undefined)}
        onConfirm={() => pending && void run(pending)}
      >
        {pending?.kind === "engage" ? (
          <p>
            Mode <strong>{pending.spec.mode}</strong>, reason “{pending.spec.reason}”. Running bots
            under it drain and stop; parked paper sessions restart when it is released.
          </p>
        ) : pending?.kind === "release" ? (
          <p>Bots held only by this switch resume; other switches on the same key stay.</p>
        ) : pending?.kind === "release-agents" ? (
          <p>
            {AGENT_SWITCHES[pending.scope].covers[0]!.toUpperCase() +
              AGENT_SWITCHES[pending.scope].covers.slice(1)}{" "}
            may start again (<code>DELETE {AGENT_SWITCHES[pending.scope].route}</code>, audited).
            The platform kill switch, when engaged, still stops them.
          </p>
        ) : pending?.kind === "drill" ? (
          <p>Engages the platform switch, times every running paper session, releases it.</p>
        ) : (
          <p>Every halt route is called. Halts by request are final.</p>
        )}
      </Confirm>
    </>
  );
}
