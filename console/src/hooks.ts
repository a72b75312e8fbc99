import { useCallback, useEffect, useRef, useState } from "preact/hooks";
import { ApiError } from "./api.js";

export interface Loaded<T> {
  data?: T;
  error?: ApiError;
  loading: boolean;
  reload: () => void;
}

/**
 * Loads with `fn`, again whenever `deps` change, and every `everyMs` when given (polling is how
 * the console follows live state). A poll never overlaps the one before it, and stops when the
 * screen goes away.
 */
export function useLoad<T>(fn: () => Promise<T>, deps: unknown[], everyMs?: number): Loaded<T> {
  const [state, setState] = useState<{ data?: T; error?: ApiError; loading: boolean }>({
    loading: true,
  });
  const [tick, setTick] = useState(0);
  const fnRef = useRef(fn);
  fnRef.current = fn;
  useEffect(() => {
    let live = true;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const run = async () => {
      try {
        const data = await fnRef.current();
        if (live) setState({ data, loading: false });
      } catch (err) {
        if (live)
          setState((s) => ({
            data: s.data,
            error: err instanceof ApiError ? err : new ApiError(0, "client", String(err)),
            loading: false,
          }));
      }
      if (live && everyMs) timer = setTimeout(run, everyMs);
    };
    void run();
    return () => {
      live = false;
      clearTimeout(timer);
    };
  }, [...deps, tick, everyMs]);
  const reload = useCallback(() => setTick((t) => t + 1), []);
  return { ...state, reload };
}
