import { parse, printParseErrorCode, type ParseError } from "jsonc-parser";
import { WireInputError } from "./wire-json.js";

/**
 * JSON.parse for the common case; on a syntax error, a strict re-scan (comments and trailing
 * commas refused) finds where it is, so the 400 says the position, line and column and what was
 * expected, whatever the Node version's own message says.
 */
export function parseJsonBody(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch (err) {
    const errors: ParseError[] = [];
    parse(text, errors, {
      disallowComments: true,
      allowTrailingComma: false,
      allowEmptyContent: false,
    });
    const first = errors[0];
    if (!first) throw new WireInputError(`malformed JSON: ${(err as Error).message}`, "body");
    const before = text.slice(0, first.offset);
    const line = before.split("\n").length;
    const column = first.offset - before.lastIndexOf("\n");
    const what = printParseErrorCode(first.error)
      .replace(/([a-z])([A-Z])/g, "$1 $2")
      .toLowerCase();
    throw new WireInputError(
      `malformed JSON at position ${first.offset} (line ${line}, column ${column}): ${what}`,
      "body",
      { position: first.offset, line, column },
    );
  }
}
