/** How often `eventually` asks again: often enough for a test, rare enough to leave the loop free. */
const POLL_MS = 25;

/**
 * Asks `fn` again and again until `ok` holds of its answer, and returns that answer. Past `ms` it
 * fails the test, naming `what` and what it last saw (or the last error `fn` threw), so a timeout
 * explains itself. A call that throws counts as "not yet". It fails only on an answer asked for
 * after the deadline, so a process that stalls mid-call (a busy CI machine) is asked once more
 * rather than judged on an answer from before the stall. This is the one way a test waits for
 * something to happen; a test never sleeps for a fixed time instead.
 *
 * @example
 * await eventually("alpha-1 halts", () => statusOf(p, "alpha-1"), (s) => s === "halted");
 */
export async function eventually<T>(
  what: string,
  fn: () => Promise<T> | T,
  ok: (v: T) => boolean,
  ms = 10_000,
): Promise<T> {
  const end = Date.now() + ms;
  let last: { value?: T; error?: unknown } = {};
  for (;;) {
    const asked = Date.now();
    try {
      const value = await fn();
      if (ok(value)) return value;
      last = { value };
    } catch (error) {
      last = { error };
    }
    if (asked > end) {
      const seen =
        "error" in last
          ? `the last call threw ${String(last.error)}`
          : `last saw ${describe(last.value)}`;
      throw new Error(`${what}: not within ${ms} ms; ${seen}`);
    }
    await new Promise((r) => setTimeout(r, POLL_MS));
  }
}

/** A short, readable rendering of what a condition last saw (HTTP answers shown as status and body). */
function describe(v: unknown): string {
  let text: string;
  try {
    text =
      v && typeof v === "object" && "status" in v && "body" in v
        ? JSON.stringify({ status: v.status, body: v.body })
        : (JSON.stringify(v) ?? String(v));
  } catch {
    text = String(v);
  }
  return text.length > 2_000 ? `${text.slice(0, 2_000)}…` : text;
}
