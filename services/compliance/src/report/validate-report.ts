import { readFileSync } from "node:fs";
import type { ValidateFunction } from "ajv";
import { lazily } from "@svc/lib/lazy";

/** Where the report's JSON Schema is shipped, for auditors and for the tests. */
export const REPORT_SCHEMA_PATH = new URL("./validation-report.schema.json", import.meta.url);

// Loaded and compiled on the first report, not at every start of the platform: ajv's compile of
// this schema was among the larger costs of npm start's CPU profile, and loading this ajv (the
// version this package asks for, not fastify's) cost each start another 20-30 ms.
const compiledSchema = lazily(async (): Promise<ValidateFunction> => {
  // ajv is CommonJS: its module.exports (the class, which also names itself Ajv) is the default
  // export both to Node and in the platform's bundle, where the named exports are not.
  const { default: ajv } = await import("ajv");
  return new ajv.Ajv({ allErrors: true, strict: true }).compile(
    JSON.parse(readFileSync(REPORT_SCHEMA_PATH, "utf8")) as object,
  );
});

/** The schema's complaints about a parsed report, empty when it conforms. */
export async function reportSchemaErrors(doc: unknown): Promise<string[]> {
  const validate = await compiledSchema();
  if (validate(doc)) return [];
  return (validate.errors ?? []).map((e) => `${e.instancePath || "/"} ${e.message ?? ""}`.trim());
}
