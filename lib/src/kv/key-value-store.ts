/** The kill-switch keys' store: Redis in a cluster, an in-process map when nothing is configured. */
export interface KeyValueStore {
  get(key: string): Promise<string | null>;
  /** The values of several keys in one round trip (Redis MGET), in the order asked. */
  getMany(keys: string[]): Promise<Array<string | null>>;
  set(key: string, value: string, opts?: { ttlSeconds?: number }): Promise<void>;
  /** True when the key existed. */
  delete(key: string): Promise<boolean>;
  /**
   * Adds one to a counter atomically and answers its new value; a new counter lives
   * `ttlSeconds` (Redis INCR + EXPIRE). Rate limits count with it; a test double may lack it.
   */
  increment?(key: string, ttlSeconds: number): Promise<number>;
  /** Every key starting with `prefix` (taken literally), with its value. */
  scan(prefix: string): Promise<Array<{ key: string; value: string }>>;
  /** Resolves when the store answers within its deadline; readiness probes ask it. */
  ping(): Promise<void>;
  close(): Promise<void>;
}
