import { spawn } from "node:child_process";
/**
 * The README's demo as a test reads it: every ```sh block preceded by `<!-- demo: checked -->`
 * is split into commands (a command runs on while a single quote is open or a line ends in `\`),
 * and a command's trailing comment (`  # ...`) is what it promises to print: a JSON fragment
 * (`{...}` or `[...]`, with `...` for what is left out) the output must contain as a subset, or
 * else text the output must contain verbatim. A comment on a line of its own is prose.
 */
export interface DemoCommand {
  /** Where the command starts in the README (1-based line), for a failure to point at. */
  line: number;
  shell: string;
  promise?: string;
}

const MARKER = "<!-- demo: checked -->";

export function demoCommands(readme: string): DemoCommand[] {
  const lines = readme.split("\n");
  const commands: DemoCommand[] = [];
  for (let i = 0; i < lines.length; i++) {
    if (lines[i]!.trim() !== MARKER) continue;
    if (lines[i + 1]?.trim() !== "```sh")
      throw new Error(`README line ${i + 1}: ${MARKER} must precede a sh block`);
    let pending: { line: number; parts: string[] } | undefined;
    for (i += 2; i < lines.length && lines[i]!.trim() !== "```"; i++) {
      const text = lines[i]!;
      if (!pending) {
        if (text.trim() === "" || text.trimStart().startsWith("#")) continue;
        pending = { line: i + 1, parts: [] };
      }
      pending.parts.push(text);
      const joined = pending.parts.join("\n");
      if (quotesOpen(joined) || joined.endsWith("\\")) continue;
      commands.push(splitPromise(pending.line, joined));
      pending = undefined;
    }
    if (pending) throw new Error(`README line ${pending.line}: a command never closes its quote`);
  }
  return commands;
}

function quotesOpen(text: string): boolean {
  let single = false;
  let double = false;
  for (const ch of text) {
    if (ch === "'" && !double) single = !single;
    else if (ch === '"' && !single) double = !double;
  }
  return single || double;
}

function splitPromise(line: number, text: string): DemoCommand {
  // The comment starts at the last "  # " outside quotes.
  let single = false;
  let double = false;
  let at = -1;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    if (ch === "'" && !double) single = !single;
    else if (ch === '"' && !single) double = !double;
    else if (!single && !double && text.startsWith("  # ", i)) {
      at = i;
      break;
    }
  }
  if (at < 0) return { line, shell: text };
  return { line, shell: text.slice(0, at).trimEnd(), promise: text.slice(at + 4).trim() };
}

/** Why `output` breaks `promise`, or undefined when it keeps it. */
export function brokenPromise(promise: string, output: string): string | undefined {
  if (!/^[[{]/.test(promise))
    return output.includes(promise) ? undefined : `does not contain ${JSON.stringify(promise)}`;
  let expected: unknown;
  try {
    expected = JSON.parse(
      promise.replace(/,\s*\.\.\.\s*(?=[}\]])/g, "").replace(/[[{]\s*\.\.\.\s*,?/g, (m) => m[0]!),
    );
  } catch (err) {
    return `its promise is not JSON: ${(err as Error).message}`;
  }
  // The whole output as one JSON document (svc --json pretty-prints), else each line (curl), else
  // each document of a line (curl --retry prints every attempt's body, one after the other).
  const lines = output.trim().split("\n").filter(Boolean);
  const texts = [
    output.trim(),
    ...lines,
    ...lines.flatMap((l) => {
      const documents = l.split(/(?<=\})(?=\{)/);
      return documents.length > 1 ? documents : [];
    }),
  ];
  for (const text of texts) {
    try {
      if (contains(JSON.parse(text), expected)) return undefined;
    } catch {
      // not a JSON line
    }
  }
  return `no line of the output contains ${JSON.stringify(expected)}`;
}

function contains(actual: unknown, expected: unknown): boolean {
  if (Array.isArray(expected))
    return (
      Array.isArray(actual) &&
      expected.every((e, i) => (i < actual.length ? contains(actual[i], e) : false))
    );
  if (expected && typeof expected === "object")
    return (
      !!actual &&
      typeof actual === "object" &&
      Object.entries(expected).every(([k, v]) =>
        contains((actual as Record<string, unknown>)[k], v),
      )
    );
  return actual === expected;
}

/** What one command printed, cut from the demo's one bash run. */
export interface DemoOutput {
  command: DemoCommand;
  output: string;
}

/**
 * Runs the commands in one bash in `cwd` (so variables carry over), against the platform on
 * `port` (SVC_PORT), and cuts the output at a marker per command. The demo's own `until` loops
 * wait on conditions; `deadlineMs` keeps a broken one from hanging CI.
 */
export async function runDemoInBash(
  list: DemoCommand[],
  o: { cwd: string; port: string; deadlineMs: number },
): Promise<DemoOutput[]> {
  const marker = "@@demo-command";
  // curl prints no newline after a body: each marker starts a line of its own.
  const script = [
    "set -e",
    ...list.map((c, i) => `printf '\\n${marker} ${i}\\n'\n${c.shell}`),
    `printf '\\n${marker} end\\n'`,
  ].join("\n");
  const child = spawn("bash", ["-c", script], {
    cwd: o.cwd,
    env: { ...process.env, SVC_PORT: o.port },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (d: Buffer) => (stdout += d.toString()));
  child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
  const timer = setTimeout(() => child.kill("SIGKILL"), o.deadlineMs);
  const code = await new Promise<number | null>((resolve) => child.on("close", resolve));
  clearTimeout(timer);
  const pieces = stdout.split(new RegExp(`^${marker} `, "m")).slice(1);
  const last = pieces.at(-1)?.trim();
  if (code !== 0 || last !== "end") {
    const stoppedAt = list[Number(last?.split("\n")[0])];
    throw new Error(
      `the demo stopped (exit ${code}) at README line ${stoppedAt?.line}: ${stoppedAt?.shell}\n${stderr.slice(-2000)}\n${stdout.slice(-2000)}`,
    );
  }
  return pieces.slice(0, -1).map((piece) => {
    const newline = piece.indexOf("\n");
    return { command: list[Number(piece.slice(0, newline))]!, output: piece.slice(newline + 1) };
  });
}

/** Each promise the outputs broke, with its README line, command and what it printed. */
export function brokenPromises(outputs: DemoOutput[]): string[] {
  return outputs.flatMap(({ command, output }) => {
    const why = command.promise && brokenPromise(command.promise, output);
    return why
      ? [
          `README line ${command.line}: ${command.shell.split("\n")[0]}\n  ${why}\n  printed: ${output.slice(0, 600)}`,
        ]
      : [];
  });
}
