/**
 * A value made at its first use, such as a module imported only when a request needs it rather
 * than at every start. Calls share one making; one that fails is not kept, so the next call tries
 * again instead of failing for the life of the process.
 *
 * @example const loadYaml = lazily(() => import("yaml")); const { stringify } = (await loadYaml()).default;
 */
export function lazily<T>(make: () => Promise<T>): () => Promise<T> {
  let made: Promise<T> | undefined;
  return () =>
    (made ??= Promise.resolve()
      .then(make)
      .catch((err: unknown) => {
        made = undefined;
        throw err;
      }));
}
