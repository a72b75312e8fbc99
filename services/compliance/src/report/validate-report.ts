import { readFileSync } from "node:fs";
import { Ajv } from "ajv";

/** Where the report's JSON Schema is shipped, for auditors and for the tests. */
export const REPORT_SCHEMA_PATH = new URL("./validation-report.schema.json", import.meta.url);

const schema: object = JSON.parse(readFileSync(REPORT_SCHEMA_PATH, "utf8")) as object;
const validate = new Ajv({ allErrors: true, strict: true }).compile(schema);

/** The schema's complaints about a parsed report, empty when it conforms. */
export function reportSchemaErrors(doc: unknown): string[] {
  if (validate(doc)) return [];
  return (validate.errors ?? []).map((e) => `${e.instancePath || "/"} ${e.message ?? ""}`.trim());
}
