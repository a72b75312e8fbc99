import { getOption, ScalarType, type DescField, type DescMessage } from "@bufbuild/protobuf";
import {
  rules as rulesOption,
  AuthMode,
  type FieldRules,
} from "@svc/gen/svc/api/v1/annotations_pb.js";
import { allowedEnumWireValues } from "@svc/lib/validate";
import type { RouteBinding } from "../routes/route-table.js";

type Schema = Record<string, unknown>;

/**
 * An OpenAPI 3.1 document generated from the same descriptors and annotations the gateway routes
 * by, so the document cannot drift from the API. Each operation says its auth policy in
 * `x-svc-auth` (mode, scopes, step-up).
 */
export function buildOpenApi(bindings: RouteBinding[]): Schema {
  const schemas: Record<string, Schema> = {
    Error: {
      type: "object",
      required: ["error"],
      properties: {
        error: {
          type: "object",
          required: ["code", "message", "details"],
          properties: {
            code: { type: "string" },
            message: { type: "string" },
            details: { type: "object" },
          },
        },
      },
    },
  };
  const ref = (desc: DescMessage): Schema => {
    addSchema(desc, schemas);
    return { $ref: `#/components/schemas/${desc.typeName}` };
  };
  const paths: Record<string, Record<string, Schema>> = {};
  for (const b of bindings) {
    const { rule, method, path } = b;
    const input = method.input;
    const parameters: Schema[] = path.params.map((name) => ({
      name,
      in: "path",
      required: true,
      schema: fieldSchema(
        input.fields.find((f) => f.name === name)!,
        ref,
      ),
    }));
    if (rule.body !== "*") {
      for (const f of input.fields) {
        if (
          path.params.includes(f.name) ||
          f.name === rule.body ||
          f.fieldKind === "message" ||
          f.fieldKind === "map"
        )
          continue;
        parameters.push({
          name: f.name,
          in: "query",
          required: false,
          schema: fieldSchema(f, ref),
        });
      }
    }
    const op: Schema = {
      operationId: `${b.service.name}_${method.name}`,
      tags: [b.service.name],
      summary: method.name.replace(/([a-z])([A-Z])/g, "$1 $2"),
      parameters,
      responses: {
        [String(rule.successStatus || (rule.redirectField ? 302 : 200))]: successResponse(b, ref),
        default: {
          description: "error",
          content: { "application/json": { schema: { $ref: "#/components/schemas/Error" } } },
        },
      },
      security: b.policy?.mode === AuthMode.PUBLIC ? [] : [{ bearerAuth: b.policy?.scopes ?? [] }],
      "x-svc-auth": {
        mode: AuthMode[b.policy?.mode ?? AuthMode.USER]?.toLowerCase(),
        scopes: b.policy?.scopes ?? [],
        step_up: b.policy?.stepUp ?? false,
        allow_agent: b.policy?.allowAgent ?? false,
      },
    };
    if (rule.body) {
      const bodySchema =
        rule.body === "*"
          ? ref(input)
          : fieldSchema(
              input.fields.find((f) => f.name === rule.body)!,
              ref,
            );
      op.requestBody = { required: true, content: { "application/json": { schema: bodySchema } } };
    }
    (paths[path.template] ??= {})[b.httpMethod.toLowerCase()] = op;
  }
  return {
    openapi: "3.1.0",
    info: {
      title: "Trading platform control plane",
      version: "v1",
      description: "Generated from the proto contract in proto/svc.",
    },
    paths,
    components: {
      schemas,
      securitySchemes: { bearerAuth: { type: "http", scheme: "bearer", bearerFormat: "JWT" } },
    },
  };
}

function successResponse(b: RouteBinding, ref: (d: DescMessage) => Schema): Schema {
  if (b.rule.redirectField)
    return { description: "redirect", headers: { location: { schema: { type: "string" } } } };
  if (b.rule.responseBody)
    return {
      description: "ok",
      content: { [b.rule.responseContentType || "text/plain"]: { schema: { type: "string" } } },
    };
  return { description: "ok", content: { "application/json": { schema: ref(b.method.output) } } };
}

function addSchema(desc: DescMessage, schemas: Record<string, Schema>): void {
  if (schemas[desc.typeName]) return;
  schemas[desc.typeName] = {};
  const ref = (d: DescMessage): Schema => {
    addSchema(d, schemas);
    return { $ref: `#/components/schemas/${d.typeName}` };
  };
  const required = desc.fields
    .filter((f) => (getOption(f, rulesOption) as FieldRules | undefined)?.required)
    .map((f) => f.name);
  schemas[desc.typeName] = {
    type: "object",
    additionalProperties: false,
    properties: Object.fromEntries(desc.fields.map((f) => [f.name, fieldSchema(f, ref)])),
    ...(required.length ? { required } : {}),
  };
}

function fieldSchema(field: DescField, ref: (d: DescMessage) => Schema): Schema {
  const rule = getOption(field, rulesOption) as FieldRules | undefined;
  switch (field.fieldKind) {
    case "scalar":
      return withRules(scalarSchema(field.scalar), rule);
    case "enum":
      return { type: "string", enum: allowedEnumWireValues(field.enum) };
    case "message":
      return messageSchema(field.message, ref);
    case "list": {
      const items =
        field.listKind === "scalar"
          ? scalarSchema(field.scalar)
          : field.listKind === "enum"
            ? { type: "string", enum: allowedEnumWireValues(field.enum) }
            : messageSchema(field.message, ref);
      return { type: "array", items };
    }
    case "map": {
      const values =
        field.mapKind === "scalar"
          ? scalarSchema(field.scalar)
          : field.mapKind === "enum"
            ? { type: "string", enum: allowedEnumWireValues(field.enum) }
            : messageSchema(field.message, ref);
      return { type: "object", additionalProperties: values };
    }
  }
}

function messageSchema(desc: DescMessage, ref: (d: DescMessage) => Schema): Schema {
  switch (desc.typeName) {
    case "google.protobuf.Struct":
      return { type: "object", additionalProperties: true };
    case "google.protobuf.Value":
      return {};
    case "google.protobuf.Timestamp":
      return { type: "string", format: "date-time" };
    case "google.protobuf.Duration":
      return { type: "string", pattern: "^-?\\d+(\\.\\d+)?s$" };
  }
  return ref(desc);
}

function scalarSchema(type: ScalarType): Schema {
  switch (type) {
    case ScalarType.STRING:
      return { type: "string" };
    case ScalarType.BOOL:
      return { type: "boolean" };
    case ScalarType.BYTES:
      return { type: "string", contentEncoding: "base64" };
    case ScalarType.DOUBLE:
    case ScalarType.FLOAT:
      return { type: "number" };
    case ScalarType.INT64:
    case ScalarType.UINT64:
    case ScalarType.SINT64:
    case ScalarType.FIXED64:
    case ScalarType.SFIXED64:
      return { type: ["integer", "string"], format: "int64" };
    default:
      return { type: "integer", format: "int32" };
  }
}

function withRules(schema: Schema, rule: FieldRules | undefined): Schema {
  if (!rule) return schema;
  const out = { ...schema };
  if (rule.pattern) out.pattern = rule.pattern;
  if (rule.maxLen) out.maxLength = rule.maxLen;
  if (rule.min !== undefined) out.minimum = rule.min;
  if (rule.max !== undefined) out.maximum = rule.max;
  return out;
}
