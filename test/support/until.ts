/** Polls `fn` until `ok` holds or `ms` pass, and returns the last value: the caller asserts on it. */
export async function until<T>(
  fn: () => Promise<T>,
  ok: (v: T) => boolean,
  ms = 10_000,
): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (ok(v) || Date.now() > end) return v;
    await new Promise((r) => setTimeout(r, 20));
  }
}

/**
 * Polls `fn` until `ok` holds and returns that value; past `ms` it fails the test with what it
 * last saw (or the last error), so a timeout explains itself.
 */
export async function eventually<T>(
  what: string,
  fn: () => Promise<T>,
  ok: (v: T) => boolean,
  ms = 10_000,
): Promise<T> {
  const end = Date.now() + ms;
  let last: { value?: T; error?: unknown } = {};
  for (;;) {
    try {
      const value = await fn();
      if (ok(value)) return value;
      last = { value };
    } catch (error) {
      last = { error };
    }
    if (Date.now() > end) {
      const seen =
        "error" in last
          ? `the last call threw ${String(last.error)}`
          : `last saw ${JSON.stringify(last.value)}`;
      throw new Error(`${what}: not within ${ms} ms; ${seen}`);
    }
    await new Promise((r) => setTimeout(r, 25));
  }
}
