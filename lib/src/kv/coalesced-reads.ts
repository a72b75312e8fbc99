/**
 * Gathers the `getMany` calls of one turn of the event loop into one read of their keys, each
 * key asked once. A process of thousands of kill-switch watchers polls thousands of times in a
 * burst (all start together; a broadcast or a restart lines them up again): as one MGET per
 * watcher, 10,000 commands queued on one Redis connection at once outlived their own deadlines
 * while waiting to be written, and the client failed every poll after that. One read per turn
 * sends one command whatever the number of watchers, and each caller keeps its own deadline.
 *
 * @example const getMany = coalescedReads((keys) => client.mGet(keys)); await getMany(["a", "b"]);
 */
export function coalescedReads(
  readAll: (keys: string[]) => Promise<Array<string | null>>,
): (keys: string[]) => Promise<Array<string | null>> {
  let batch: Array<{
    keys: string[];
    settle(values: Map<string, string | null>): void;
    fail(err: unknown): void;
  }> = [];
  const flush = () => {
    const callers = batch;
    batch = [];
    const unique = [...new Set(callers.flatMap((c) => c.keys))];
    readAll(unique).then(
      (values) => {
        const byKey = new Map(unique.map((k, i) => [k, values[i] ?? null]));
        for (const c of callers) c.settle(byKey);
      },
      (err: unknown) => {
        for (const c of callers) c.fail(err);
      },
    );
  };
  return (keys) => {
    if (keys.length === 0) return Promise.resolve([]);
    return new Promise((resolve, reject) => {
      if (batch.length === 0) setImmediate(flush);
      batch.push({
        keys,
        settle: (byKey) => resolve(keys.map((k) => byKey.get(k) ?? null)),
        fail: reject,
      });
    });
  };
}
