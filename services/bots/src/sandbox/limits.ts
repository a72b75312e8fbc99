import { SETTINGS, type SettingName } from "@svc/lib/config";

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

const ENV = {
  memoryMb: "SVC_STRATEGY_MEMORY_MB",
  addressSpaceMb: "SVC_STRATEGY_ADDRESS_SPACE_MB",
  callTimeoutMs: "SVC_STRATEGY_CALL_TIMEOUT_MS",
  slowCallMs: "SVC_STRATEGY_SLOW_CALL_MS",
  runCpuSeconds: "SVC_STRATEGY_RUN_CPU_SECONDS",
  logLines: "SVC_STRATEGY_LOG_LINES",
  logLineChars: "SVC_STRATEGY_LOG_LINE_CHARS",
  maxAnswerBytes: "SVC_STRATEGY_MAX_ANSWER_BYTES",
} as const satisfies Record<keyof SandboxLimits, SettingName>;

const KEYS = Object.keys(ENV) as (keyof SandboxLimits)[];

/** The range a setting's declaration (lib/src/config/settings.ts) allows. */
function range(key: keyof SandboxLimits): { min: number; max: number } {
  const kind = SETTINGS[ENV[key]].kind;
  return kind.type === "int" ? kind : { min: 1, max: Number.MAX_SAFE_INTEGER };
}

/** The declared defaults of the SVC_STRATEGY_* settings. */
export const DEFAULT_SANDBOX_LIMITS: Readonly<SandboxLimits> = Object.freeze(
  Object.fromEntries(
    KEYS.map((key) => [key, Number(SETTINGS[ENV[key]].default)]),
  ) as unknown as SandboxLimits,
);

/** The limits from the environment (SVC_STRATEGY_*), defaults for what is unset; a bad value throws. */
export function sandboxLimitsFromEnv(env: NodeJS.ProcessEnv = process.env): SandboxLimits {
  const out = { ...DEFAULT_SANDBOX_LIMITS };
  for (const key of KEYS) {
    const raw = env[ENV[key]];
    if (raw === undefined || raw === "") continue;
    const value = Number(raw);
    const { min, max } = range(key);
    if (!/^\d+$/.test(raw) || !Number.isSafeInteger(value) || value < min || value > max)
      throw new Error(
        `${ENV[key]}=${JSON.stringify(raw)}: give a whole number from ${min} to ${max}`,
      );
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
