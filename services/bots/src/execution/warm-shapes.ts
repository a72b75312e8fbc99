// What keeps the JIT's compiled engine code valid from one backtest to the next in a
// long-running process (the bots service): code compiled in one run is specialised to the shapes
// (V8's maps) of that run's objects and arrays, and is thrown away, then compiled anew, when the
// next run's objects have other shapes or when a collection finds no object of a shape left.

/**
 * An empty array of objects or strings, born in the elements kind it will hold. A literal `[]`
 * starts as small integers and changes kind at its first object, so the next run's new `[]`
 * fails the checks of code compiled against the first run's arrays.
 */
export function emptyObjects<T extends object | string>(): T[] {
  const out = [null] as unknown as T[];
  out.pop();
  return out;
}

/** An empty array of numbers in the elements kind of fractions (see `emptyObjects`). */
export function emptyNumbers(): number[] {
  const out = [0.5];
  out.pop();
  return out;
}

/**
 * The last run finished and the last order placed: what they reference stays alive with them.
 * Both slots are there from the start: adding one at a run's end would change this object's
 * shape and deoptimise the order path, which writes the other.
 */
const kept: { run: object | undefined; order: object | undefined } = {
  run: undefined,
  order: undefined,
};

// While one object of a shape is alive, the code compiled for that shape survives the
// collections between runs. A finished run is kept until the next one finishes (so its results
// are held that long), an order until the next is placed.

/** Keeps a finished run (its broker, books, curve and strategy) alive; see `kept`. */
export function keepRun(run: object): void {
  kept.run = run;
}

/** Keeps an order alive (a run ends with none working); see `kept`. */
export function keepOrder(order: object): void {
  kept.order = order;
}
