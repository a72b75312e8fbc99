import type { Io } from "./io.js";
import { run } from "./program.js";

export interface Ran {
  code: number;
  stdout: string;
  stderr: string;
}

export interface FakeTerminal {
  /** Local auth: act as this user. */
  as?: string;
  stdinIsTTY?: boolean;
  stderrIsTTY?: boolean;
  /** What the person types when asked. */
  answer?: string;
  /** Called in place of each wait of `backtest --watch` (the n-th wait, from 1). */
  onSleep?: (n: number) => Promise<void>;
  env?: Record<string, string>;
}

/**
 * Runs `svc` in this process against `url`, as a script would (no terminal unless asked for),
 * and returns its exit code and what it printed. Tests of the command tree, not of the process.
 */
export async function svcIn(url: string, args: string[], t: FakeTerminal = {}): Promise<Ran> {
  let stdout = "";
  let stderr = "";
  let sleeps = 0;
  const io: Io = {
    out: (s) => {
      stdout += s;
    },
    err: (s) => {
      stderr += s;
    },
    stdoutIsTTY: false,
    stderrIsTTY: t.stderrIsTTY ?? false,
    stdinIsTTY: t.stdinIsTTY ?? false,
    ask: async (q) => {
      stderr += q;
      return t.answer ?? "";
    },
    env: { SVC_URL: url, ...t.env },
    sleep: async (ms) => {
      sleeps += 1;
      if (t.onSleep) await t.onSleep(sleeps);
      else await new Promise((r) => setTimeout(r, ms));
    },
  };
  const code = await run([...(t.as ? ["--as", t.as] : []), ...args], io);
  return { code, stdout, stderr };
}
