/**
 * A queue between a producer that pushes (the agent's callbacks) and one consumer that pulls
 * (the streaming handler): what is pushed before the consumer asks waits, in order; `end` with
 * an error makes the consumer's loop throw it after the items already pushed.
 */
export function eventQueue<T>() {
  const items: T[] = [];
  let wake: (() => void) | undefined;
  let ended = false;
  let failure: { err: unknown } | undefined;
  const poke = () => {
    const w = wake;
    wake = undefined;
    w?.();
  };
  return {
    push(item: T) {
      if (ended) return;
      items.push(item);
      poke();
    },
    end(err?: unknown) {
      if (ended) return;
      ended = true;
      if (err !== undefined) failure = { err };
      poke();
    },
    async *drain(): AsyncGenerator<T> {
      for (;;) {
        if (items.length > 0) {
          yield items.shift()!;
          continue;
        }
        if (ended) {
          if (failure) throw failure.err;
          return;
        }
        await new Promise<void>((resolve) => (wake = resolve));
      }
    },
  };
}
