import { createInterface } from "node:readline/promises";

/**
 * Where the command reads and writes. The process's own streams in `svc`; tests hand in their
 * own, so a command runs in-process against a real platform and its output can be read back.
 */
export interface Io {
  out(text: string): void;
  err(text: string): void;
  stdoutIsTTY: boolean;
  stderrIsTTY: boolean;
  stdinIsTTY: boolean;
  /** Asks a person a question on the terminal and returns the line typed. */
  ask(question: string): Promise<string>;
  env: Record<string, string | undefined>;
  sleep(ms: number): Promise<void>;
}

/** A command's chosen exit code, with what to say on stderr first. */
export class CliExit extends Error {
  constructor(
    readonly code: number,
    message = "",
  ) {
    super(message);
  }
}

export const processIo = (): Io => ({
  out: (text) => process.stdout.write(text),
  err: (text) => process.stderr.write(text),
  stdoutIsTTY: Boolean(process.stdout.isTTY),
  stderrIsTTY: Boolean(process.stderr.isTTY),
  stdinIsTTY: Boolean(process.stdin.isTTY),
  async ask(question) {
    const rl = createInterface({ input: process.stdin, output: process.stderr });
    try {
      return await rl.question(question);
    } finally {
      rl.close();
    }
  },
  env: process.env,
  sleep: (ms) => new Promise((r) => setTimeout(r, ms)),
});
