import { useState } from "preact/hooks";
import { api, seg, type ApiError } from "../api.js";
import { ErrorNote } from "../components/ErrorNote.js";
import { Link } from "../components/Link.js";
import { enumWord, num, when } from "../format.js";
import { useLoad } from "../hooks.js";
import type { PromotionRequest, WhoAmI } from "../types.js";
import { tokenKey } from "./BotPage.js";

export function Approvals({ who }: { who: WhoAmI | undefined }) {
  const pending = useLoad(
    () => api<{ items: PromotionRequest[] }>("GET", "/promotion/approvals"),
    [who?.sub],
    5_000,
  );
  const recent = useLoad(
    () => api<{ items: PromotionRequest[] }>("GET", "/promotion/requests?limit=50"),
    [who?.sub],
    5_000,
  );
  const decided = (recent.data?.items ?? []).filter((r) => r.status !== "pending");
  // A request decided here leaves the pending list; its card stays, with the outcome, until the
  // screen is left, so the decision's answer is not whisked away.
  const [kept, setKept] = useState<PromotionRequest[]>([]);
  const cards = [
    ...(pending.data?.items ?? []),
    ...kept.filter((k) => !(pending.data?.items ?? []).some((r) => r.request_id === k.request_id)),
  ];
  const reload = (r: PromotionRequest) => {
    setKept((k) => [...k.filter((x) => x.request_id !== r.request_id), r]);
    pending.reload();
    recent.reload();
  };
  return (
    <>
      <h1 tabIndex={-1}>Approvals</h1>
      <p>
        Promotion requests waiting for a human. The submitter cannot decide their own request (four
        eyes), and deciding needs a fresh second factor (step-up).
      </p>
      <ErrorNote error={pending.error} what="listing pending approvals" />
      {pending.data && pending.data.items.length === 0 ? <p>Nothing waits for approval.</p> : null}
      {cards.map((r) => (
        <RequestCard key={r.request_id} request={r} onDecided={reload} />
      ))}
      <h2>Recently decided</h2>
      <ErrorNote error={recent.error} what="listing requests" />
      <table>
        <thead>
          <tr>
            <th scope="col">Request</th>
            <th scope="col">Bot</th>
            <th scope="col">Status</th>
            <th scope="col">Submitted by</th>
            <th scope="col">Decided by</th>
          </tr>
        </thead>
        <tbody>
          {decided.map((r) => (
            <tr key={r.request_id}>
              <td>
                <code>{r.request_id}</code>
              </td>
              <td>{r.artifact?.bot_ref ?? "—"}</td>
              <td>{enumWord(r.status)}</td>
              <td>{r.requested_by}</td>
              <td>{r.decisions.map((d) => `${d.actor} (${d.action})`).join(", ") || "—"}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </>
  );
}

function RequestCard({
  request: r,
  onDecided,
}: {
  request: PromotionRequest;
  onDecided: (r: PromotionRequest) => void;
}) {
  const [error, setError] = useState<ApiError | undefined>();
  const [outcome, setOutcome] = useState<PromotionRequest | undefined>();
  const id = seg(r.request_id);
  const ev = r.evidence;
  const decide = async (action: "approve" | "reject", text: string) => {
    try {
      const done = await api<PromotionRequest>(
        "POST",
        `/promotion/requests/${id}/${action}`,
        action === "approve" ? { note: text } : { reason: text },
      );
      setError(undefined);
      setOutcome(done);
      if (done.approved_promotion && done.artifact?.bot_ref)
        sessionStorage.setItem(tokenKey(done.artifact.bot_ref), done.approved_promotion);
      onDecided(done);
    } catch (err) {
      setError(err as ApiError);
    }
  };
  const h = `req-${r.request_id}`;
  return (
    <article class="panel" aria-labelledby={h} data-request={r.request_id}>
      <h2 id={h}>
        {enumWord(r.kind)} <code>{r.request_id}</code>
        {r.artifact ? (
          <>
            {" "}
            for <Link href={`/console/bots/${seg(r.artifact.bot_ref)}`}>
              {r.artifact.bot_ref}
            </Link>{" "}
            v{r.artifact.version}
          </>
        ) : null}
      </h2>
      <dl class="facts">
        <dt>Submitted by</dt>
        <dd>{r.requested_by}</dd>
        <dt>Submitted</dt>
        <dd>{when(r.created_at)}</dd>
        <dt>Validation</dt>
        <dd>{r.validation?.verdict ?? "—"}</dd>
        <dt>Risk</dt>
        <dd>{r.risk?.decision ?? "—"}</dd>
        <dt>DSR</dt>
        <dd>{num(ev?.deflated_sharpe_ratio, 3)}</dd>
        <dt>PBO</dt>
        <dd>{num(ev?.probability_of_backtest_overfitting, 3)}</dd>
        <dt>Trials (N)</dt>
        <dd>{ev?.trial_count ?? "—"}</dd>
      </dl>
      <table>
        <caption>Gates</caption>
        <thead>
          <tr>
            <th scope="col">Gate</th>
            <th scope="col">Outcome</th>
            <th scope="col">Detail</th>
          </tr>
        </thead>
        <tbody>
          {r.gates.map((g) => (
            <tr key={g.name}>
              <td>{g.name}</td>
              <td>
                <span class={`badge ${g.passed ? "ok" : "bad"}`}>
                  {g.passed ? "passed" : "failed"}
                </span>
              </td>
              <td>{g.detail}</td>
            </tr>
          ))}
        </tbody>
      </table>
      {outcome ? (
        <p role="status" class="done">
          {enumWord(outcome.status)} by you.
          {outcome.approved_promotion && outcome.artifact ? (
            <>
              {" "}
              The ApprovedPromotion token is filled in on{" "}
              <Link href={`/console/bots/${seg(outcome.artifact.bot_ref)}`}>the bot's page</Link>.
            </>
          ) : null}
        </p>
      ) : (
        <form
          class="decide"
          onSubmit={(e) => {
            e.preventDefault();
            const submitter = (e as SubmitEvent).submitter as HTMLButtonElement | null;
            const text = String(new FormData(e.currentTarget).get("note") ?? "").trim();
            void decide(submitter?.value === "reject" ? "reject" : "approve", text);
          }}
        >
          <label for={`note-${r.request_id}`}>Note (a reason is required to reject)</label>
          <input id={`note-${r.request_id}`} name="note" maxLength={4000} />
          <div class="actions">
            <button type="submit" name="action" value="approve">
              Approve
            </button>
            <button type="submit" name="action" value="reject" class="danger">
              Reject
            </button>
          </div>
        </form>
      )}
      <ErrorNote error={error} what="deciding" />
    </article>
  );
}
