import { readFileSync } from "node:fs";
import { Ajv, type ValidateFunction } from "ajv";

/** Where the report's JSON Schema is shipped, for auditors and for the tests. */
export const REPORT_SCHEMA_PATH = new URL("./validation-report.schema.json", import.meta.url);

// Compiled on the first report, not at every start of the platform (ajv's compile of this schema
// was among the larger costs of npm start's CPU profile).
let validate: ValidateFunction | undefined;

/** The schema's complaints about a parsed report, empty when it conforms. */
export function reportSchemaErrors(doc: unknown): string[] {
  validate ??= new Ajv({ allErrors: true, strict: true }).compile(
    JSON.parse(readFileSync(REPORT_SCHEMA_PATH, "utf8")) as object,
  );
  if (validate(doc)) return [];
  return (validate.errors ?? []).map((e) => `${e.instancePath || "/"} ${e.message ?? ""}`.trim());
}
