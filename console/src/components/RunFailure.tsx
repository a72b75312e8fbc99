/** The codes a run's recorded error starts with when the strategy's code broke it. */
const STRATEGY_CODES = ["strategy_timeout", "strategy_memory", "strategy_error", "invalid_params"];

/** A run's recorded error split as the platform writes it: "code: message", then stack frames. */
export function parseRunError(error: string): { code?: string; message: string; stack: string[] } {
  const [head = "", ...frames] = error.split("\n");
  const m = /^([a-z_]+): ([\s\S]*)$/.exec(head);
  if (!m || !STRATEGY_CODES.includes(m[1]!)) return { message: error, stack: [] };
  return { code: m[1], message: m[2]!, stack: frames.filter((f) => f.trim() !== "") };
}

const WHAT: Record<string, string> = {
  strategy_timeout: "the strategy ran over its time limit",
  strategy_memory: "the strategy ran out of memory",
  strategy_error: "the strategy threw or answered something invalid",
  invalid_params: "the parameters do not fit the strategy's declarations",
};

/**
 * Why a run failed, as the platform recorded it: a strategy's failure shows its code, what that
 * means, its message and the strategy's own stack frames; any other error its text.
 */
export function RunFailure({ error }: { error: string }) {
  const e = parseRunError(error);
  if (!e.code) return <span class="run-error">error: {error}</span>;
  return (
    <div class="run-error strategy-failure">
      <p>
        <code class="failure-code">{e.code}</code> ({WHAT[e.code]}): {e.message}
      </p>
      {e.stack.length > 0 ? (
        <details>
          <summary>Strategy stack</summary>
          <pre tabIndex={0}>
            <code>{e.stack.map((l) => l.trim()).join("\n")}</code>
          </pre>
        </details>
      ) : null}
    </div>
  );
}
