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
  // The whole output as one JSON document (svc --json pretty-prints), else each line (curl).
  const texts = [output.trim(), ...output.trim().split("\n").filter(Boolean)];
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
