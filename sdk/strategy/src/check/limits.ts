/** One source file of a strategy, as a client sends it. */
export interface StrategyFile {
  path: string;
  content: string;
}

/**
 * Bounds on what is checked at all: the checker's cost grows with the source, so a request past
 * these is refused before any compiler sees it. The proto rules say the same for one file.
 */
export const STRATEGY_LIMITS = {
  maxFiles: 64,
  maxPathChars: 200,
  maxFileChars: 262_144,
  maxTotalChars: 1_048_576,
} as const;

/** A relative .ts path of plain segments: never absolute, never `.` or `..`, no backslash. */
export const STRATEGY_PATH = /^[A-Za-z0-9_][A-Za-z0-9._-]*(\/[A-Za-z0-9_][A-Za-z0-9._-]*)*\.ts$/;

/** What is wrong with the files as input (not as TypeScript), naming the field, or undefined. */
export function strategyInputProblem(
  files: readonly StrategyFile[],
): { field: string; message: string } | undefined {
  const L = STRATEGY_LIMITS;
  if (files.length === 0)
    return {
      field: "strategy.code.files",
      message: "strategy.code.files is empty: send the entry file at least",
    };
  if (files.length > L.maxFiles)
    return {
      field: "strategy.code.files",
      message: `strategy.code.files has ${files.length} files; at most ${L.maxFiles} are allowed`,
    };
  const seen = new Map<string, string>();
  let total = 0;
  for (const [i, f] of files.entries()) {
    const field = `strategy.code.files[${i}]`;
    if (typeof f.path !== "string" || typeof f.content !== "string")
      return { field, message: `${field} needs a path and a content, both strings` };
    if (f.path.length > L.maxPathChars || !STRATEGY_PATH.test(f.path))
      return {
        field: `${field}.path`,
        message: `${field}.path=${JSON.stringify(f.path.slice(0, 80))} is not a relative .ts path of plain segments (letters, digits, . _ -; no "..", no leading "/")`,
      };
    // Two paths that differ only in case are one file on some disks: a checkout would lose one.
    const folded = f.path.toLowerCase();
    const other = seen.get(folded);
    if (other !== undefined)
      return { field: `${field}.path`, message: `${field}.path "${f.path}" repeats "${other}"` };
    seen.set(folded, f.path);
    if (f.content.includes("\u0000"))
      return {
        field: `${field}.content`,
        message: `${field}.content (${f.path}) contains the NUL character (U+0000); remove it`,
      };
    if (f.content.length > L.maxFileChars)
      return {
        field: `${field}.content`,
        message: `${f.path} is ${f.content.length} characters long; at most ${L.maxFileChars} are allowed`,
      };
    total += f.content.length;
  }
  if (total > L.maxTotalChars)
    return {
      field: "strategy.code.files",
      message: `the strategy's files hold ${total} characters together; at most ${L.maxTotalChars} are allowed`,
    };
  return undefined;
}
