/** A run's limits; every one acts (see isolation.ts and host.ts), and breaking one fails the run. */
export interface SandboxLimits {
  /** V8 heap of the strategy's process, MiB (node's --max-old-space-size): past it, strategy_memory. */
  memoryMb: number;
  /**
   * Address space of the process (RLIMIT_AS), MiB: what array buffers may take beside the heap.
   * Node itself reserves address space at start (about 0.9 GiB on node 20, 1.2 GiB on node 24),
   * so this is well above memoryMb.
   */
  addressSpaceMb: number;
  /** Wall-clock time of one call (init, a block, a snapshot, onStop), ms: past it, strategy_timeout. */
  callTimeoutMs: number;
  /**
   * A call running longer than this, ms, has its process reniced to 19 for the rest of the run, so
   * a strategy that spins yields the CPU to the others until its call's limit ends it.
   */
  slowCallMs: number;
  /** CPU seconds of the whole run (RLIMIT_CPU): past it, strategy_timeout. */
  runCpuSeconds: number;
  /** Log lines kept per run; lines past it are counted, not kept. */
  logLines: number;
  /** Characters kept of one log line's message (and of each field's string value). */
  logLineChars: number;
  /** Largest answer the host reads from the child, bytes: past it, strategy_error. */
  maxAnswerBytes: number;
}

export const DEFAULT_SANDBOX_LIMITS: Readonly<SandboxLimits> = Object.freeze({
  memoryMb: 256,
  addressSpaceMb: 2048,
  callTimeoutMs: 10_000,
  slowCallMs: 250,
  runCpuSeconds: 3_600,
  logLines: 1_000,
  logLineChars: 1_000,
  maxAnswerBytes: 16 * 1024 * 1024,
});

const ENV: Record<keyof SandboxLimits, string> = {
  memoryMb: "SVC_STRATEGY_MEMORY_MB",
  addressSpaceMb: "SVC_STRATEGY_ADDRESS_SPACE_MB",
  callTimeoutMs: "SVC_STRATEGY_CALL_TIMEOUT_MS",
  slowCallMs: "SVC_STRATEGY_SLOW_CALL_MS",
  runCpuSeconds: "SVC_STRATEGY_RUN_CPU_SECONDS",
  logLines: "SVC_STRATEGY_LOG_LINES",
  logLineChars: "SVC_STRATEGY_LOG_LINE_CHARS",
  maxAnswerBytes: "SVC_STRATEGY_MAX_ANSWER_BYTES",
};

/** The limits from the environment (SVC_STRATEGY_*), defaults for what is unset; a bad value throws. */
export function sandboxLimitsFromEnv(env: NodeJS.ProcessEnv = process.env): SandboxLimits {
  const out = { ...DEFAULT_SANDBOX_LIMITS };
  for (const key of Object.keys(ENV) as (keyof SandboxLimits)[]) {
    const raw = env[ENV[key]];
    if (raw === undefined || raw === "") continue;
    const value = Number(raw);
    if (!Number.isSafeInteger(value) || value < 1)
      throw new Error(`${ENV[key]}=${JSON.stringify(raw)}: give a whole number above 0`);
    out[key] = value;
  }
  return out;
}

export function checkLimits(limits: SandboxLimits): void {
  for (const [key, value] of Object.entries(limits))
    if (!Number.isSafeInteger(value) || value < 1)
      throw new RangeError(`sandbox limit ${key} must be a whole number above 0, not ${value}`);
  if (limits.addressSpaceMb < limits.memoryMb + 1_280)
    throw new RangeError(
      `sandbox limit addressSpaceMb (${limits.addressSpaceMb}) must exceed memoryMb (${limits.memoryMb}) by 1,280 MiB: node reserves about that much at start`,
    );
}
