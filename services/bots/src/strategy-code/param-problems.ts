import type { JsonObject } from "@bufbuild/protobuf";

/**
 * A parameter declaration as a strategy's code reported it from inside the sandbox: untrusted
 * JSON, so every field is read as unknown and only the shapes the SDK declares are honoured.
 */
export type DeclaredParams = Record<string, unknown>;

/** One given value the declarations refuse: the field as the API names it and what it accepts. */
export interface ParamProblem {
  field: string;
  message: string;
  details: JsonObject;
}

/** How a name or a value is quoted in a message: JSON, so a NUL or a look-alike shows escaped. */
const quote = (v: unknown): string => JSON.stringify(v) ?? String(v);

const MAX_QUOTED = 80;
const shortQuote = (v: unknown): string => {
  const q = quote(v);
  return q.length > MAX_QUOTED ? `${q.slice(0, MAX_QUOTED)}...` : q;
};

const own = (o: object, k: string) => Object.prototype.hasOwnProperty.call(o, k);

function numberOr(v: unknown): number | undefined {
  return typeof v === "number" && Number.isFinite(v) ? v : undefined;
}

/** " from 2 to 200", " of at least 2", " of at most 9" or nothing, as the message says the range. */
function rangeWords(min: number | undefined, max: number | undefined): string {
  if (min !== undefined && max !== undefined) return ` from ${min} to ${max}`;
  if (min !== undefined) return ` of at least ${min}`;
  if (max !== undefined) return ` of at most ${max}`;
  return "";
}

/**
 * The first problem of the given values against the declarations, or undefined when every value
 * fits: an undeclared name, a value of the wrong type (a string "NaN", null, an object), a
 * fraction for an int, a number outside min..max, a string outside an enum's values. The same
 * rules the sandbox applies when a run starts, said with the whole range, so a person can act.
 */
export function paramProblem(
  declared: DeclaredParams,
  given: Record<string, unknown>,
): ParamProblem | undefined {
  const names = Object.keys(declared);
  for (const name of Object.keys(given)) {
    const field = `strategy.parameters.${name}`;
    const value = given[name];
    if (!own(declared, name))
      return {
        field,
        message: `strategy.parameters: ${shortQuote(name)} is not a parameter of this strategy; it declares ${names.length ? names.map((n) => quote(n)).join(", ") : "none"}`,
        details: { parameter: name, declared: names },
      };
    const decl = declared[name];
    if (typeof decl !== "object" || decl === null) continue;
    const spec = decl as Record<string, unknown>;
    const base = { parameter: name, type: String(spec.type) };
    if (spec.type === "boolean") {
      if (typeof value !== "boolean")
        return {
          field,
          message: `${field} is ${shortQuote(value)}: it is declared a boolean, give true or false`,
          details: base,
        };
    } else if (spec.type === "enum") {
      const values = Array.isArray(spec.values) ? spec.values.map(String) : [];
      if (typeof value !== "string" || !values.includes(value))
        return {
          field,
          message: `${field} is ${shortQuote(value)}: it is declared one of ${values.map((v) => quote(v)).join(", ")}`,
          details: { ...base, allowed: values },
        };
    } else if (spec.type === "int" || spec.type === "number") {
      const min = numberOr(spec.min);
      const max = numberOr(spec.max);
      const range = {
        ...(min !== undefined ? { min } : {}),
        ...(max !== undefined ? { max } : {}),
      };
      const kind = spec.type === "int" ? "an integer" : "a number";
      const wants = `it is declared ${kind}${rangeWords(min, max)}`;
      const bad =
        typeof value !== "number" ||
        !Number.isFinite(value) ||
        (spec.type === "int" && !Number.isInteger(value)) ||
        (min !== undefined && value < min) ||
        (max !== undefined && value > max);
      if (bad)
        return {
          field,
          message: `${field} is ${shortQuote(value)}: ${wants}`,
          details: { ...base, ...range },
        };
    }
  }
  return undefined;
}
