import { readFileSync } from "node:fs";
import type { ValidateFunction } from "ajv";

/** Where the report's JSON Schema is shipped, for auditors and for the tests. */
export const REPORT_SCHEMA_PATH = new URL("./validation-report.schema.json", import.meta.url);

// Loaded and compiled on the first report, not at every start of the platform: ajv's compile of
// this schema was among the larger costs of npm start's CPU profile, and loading this ajv (the
// version this package asks for, not fastify's) cost each start another 20-30 ms.
let validating: Promise<ValidateFunction> | undefined;

/** The schema's complaints about a parsed report, empty when it conforms. */
export async function reportSchemaErrors(doc: unknown): Promise<string[]> {
  // ajv is CommonJS: its module.exports (the class, which also names itself Ajv) is the default
  // export both to Node and in the platform's bundle, where the named exports are not.
  validating ??= import("ajv")
    .then(({ default: ajv }) =>
      new ajv.Ajv({ allErrors: true, strict: true }).compile(
        JSON.parse(readFileSync(REPORT_SCHEMA_PATH, "utf8")) as object,
      ),
    )
    .catch((err: unknown) => {
      // Not kept: the next report tries again rather than failing for the process's life.
      validating = undefined;
      throw err;
    });
  const validate = await validating;
  if (validate(doc)) return [];
  return (validate.errors ?? []).map((e) => `${e.instancePath || "/"} ${e.message ?? ""}`.trim());
}
