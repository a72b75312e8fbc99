import type { DescField, JsonObject } from "@bufbuild/protobuf";
import type { RouteBinding } from "../routes/route-table.js";
import { WireInputError, wireToProtoJson } from "./wire-json.js";

/**
 * Assembles the RPC input, in protobuf JSON, from the three places a REST call carries it:
 * the body (per the rule's `body`), the query string (fields the body does not take) and the
 * path parameters (which always win and may not be contradicted by the body).
 */
export function requestInput(
  binding: RouteBinding,
  params: Record<string, string>,
  query: Record<string, string | string[]>,
  body: unknown,
): JsonObject {
  const { method, rule, path } = binding;
  const input = method.input;
  const bodyField = rule.body;
  let out: JsonObject = {};

  if (bodyField === "*") {
    // Only an absent body means "no fields"; a JSON null is something sent, and not an object.
    out = wireToProtoJson(input, body === undefined ? {} : body, "", "body");
    for (const param of path.params) {
      if (out[param] !== undefined && out[param] !== params[param]) {
        throw new WireInputError(
          `${param} is given by the path as "${params[param]}" and differs in the body; drop it from the body`,
          param,
        );
      }
    }
  } else if (bodyField) {
    const field = input.fields.find((f) => f.name === bodyField)!;
    if (body !== undefined) out[field.name] = bodyValue(field, body);
  } else if (body !== undefined && !isEmptyObject(body)) {
    throw new WireInputError(
      `${binding.httpMethod} ${path.template} takes no request body; send its fields as query parameters`,
      "body",
    );
  }

  const queryKeys = Object.keys(query);
  if (queryKeys.length > 0) {
    if (bodyField === "*") {
      throw new WireInputError(
        `unknown query parameter ${queryKeys[0]}; this route takes its input in the JSON body`,
        queryKeys[0]!,
      );
    }
    for (const key of queryKeys) {
      if (path.params.includes(key) || key === bodyField) {
        throw new WireInputError(
          `query parameter ${key} is not allowed here; it is given by the ${key === bodyField ? "body" : "path"}`,
          key,
        );
      }
    }
    Object.assign(out, wireToProtoJson(input, query, "", "query"));
  }

  const typedParams = wireToProtoJson(input, params, "", "query");
  return { ...out, ...typedParams };
}

function bodyValue(field: DescField, body: unknown) {
  if (field.fieldKind !== "message") throw new Error(`body field ${field.name} must be a message`);
  if (field.message.typeName === "google.protobuf.Struct") {
    if (typeof body !== "object" || body === null || Array.isArray(body))
      throw new WireInputError("the request body must be a JSON object", "body");
    return body as JsonObject;
  }
  return wireToProtoJson(field.message, body, "", "body");
}

function isEmptyObject(v: unknown): boolean {
  return typeof v === "object" && v !== null && !Array.isArray(v) && Object.keys(v).length === 0;
}
