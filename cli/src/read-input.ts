import { readFile } from "node:fs/promises";
import { text } from "node:stream/consumers";
import { CliExit } from "./io.js";

/** A file's text, or standard input's for `-`; an unreadable file is the caller's mistake (exit 2). */
export async function readInput(file: string): Promise<string> {
  try {
    return file === "-" ? await text(process.stdin) : await readFile(file, "utf8");
  } catch (e) {
    throw new CliExit(2, `cannot read ${file}: ${(e as Error).message}`);
  }
}
