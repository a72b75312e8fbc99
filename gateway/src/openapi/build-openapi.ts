import {
  getOption,
  ScalarType,
  type DescEnum,
  type DescField,
  type DescMessage,
  type DescMethod,
} from "@bufbuild/protobuf";
import {
  rules as rulesOption,
  AuthMode,
  type AuthPolicy,
  type FieldRules,
} from "@svc/gen/svc/api/v1/annotations_pb.js";
import { comments } from "@svc/gen/svc/docs_comments.js";
import { allowedEnumWireValues, enumValueWireName } from "@svc/lib/validate";
import type { RouteBinding } from "../routes/route-table.js";
import { REQUEST_EXAMPLES } from "./examples.js";

type Schema = Record<string, unknown>;

export interface OpenApiOptions {
  /** The capability an RPC lacks when it answers 501 (completeService's record), else undefined. */
  notBuilt?: (method: DescMethod) => string | undefined;
}

/**
 * An OpenAPI 3.1 document generated from the same descriptors and annotations the gateway routes
 * by, so the document cannot drift from the API. Each operation says its auth policy in
 * `x-svc-auth` (mode, scopes, step-up); descriptions are the proto comments (gen/src/svc/
 * docs_comments.js); an RPC that answers 501 carries `x-svc-not-built` with the capability.
 */
export function buildOpenApi(bindings: RouteBinding[], opts: OpenApiOptions = {}): Schema {
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
  const operationIds = new Map<string, number>();
  for (const b of bindings) {
    const { rule, method, path } = b;
    const input = method.input;
    const parameters: Schema[] = path.params.map((name) => {
      const field = input.fields.find((f) => f.name === name)!;
      return {
        name,
        in: "path",
        required: true,
        ...describedBy(fieldComment(field)),
        schema: fieldSchema(field, ref),
      };
    });
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
          ...describedBy(fieldComment(f)),
          schema: fieldSchema(f, ref),
        });
      }
    }
    const missing = opts.notBuilt?.(method);
    // An RPC reached by further paths (additional_paths) gets one operation per path, each with
    // an id of its own, as OpenAPI requires.
    const baseId = `${b.service.name}_${method.name}`;
    const seen = (operationIds.get(baseId) ?? 0) + 1;
    operationIds.set(baseId, seen);
    const op: Schema = {
      operationId: seen === 1 ? baseId : `${baseId}_${seen}`,
      tags: [b.service.name],
      summary: method.name.replace(/([a-z])([A-Z])/g, "$1 $2") + (missing ? " (not built)" : ""),
      description: paragraphs(
        comments[`${b.service.typeName}.${method.name}`],
        missing &&
          `Not built yet: answers 501 not_implemented (capability: ${missing}) until it is.`,
        authSentence(b.policy),
      ),
      ...(missing ? { "x-svc-not-built": missing } : {}),
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
      // A path parameter is not read from the body: when the body's message has a field of that
      // name, its schema here goes without it (inline: the component also serves other routes).
      const field = rule.body === "*" ? undefined : input.fields.find((f) => f.name === rule.body)!;
      const message = field ? field.message : input;
      const omit = path.params.filter((name) => message?.fields.some((f) => f.name === name));
      const bodySchema =
        message && omit.length
          ? objectSchema(message, ref, omit)
          : field
            ? fieldSchema(field, ref)
            : ref(input);
      const example = REQUEST_EXAMPLES[`${b.service.typeName}.${method.name}`];
      op.requestBody = {
        ...describedBy(field ? fieldComment(field) : comments[input.typeName]),
        required: true,
        content: {
          "application/json": {
            schema: bodySchema,
            ...(example !== undefined ? { example } : {}),
          },
        },
      };
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
  if (b.method.methodKind === "server_streaming")
    return {
      description:
        `A stream of ${b.method.output.name}: with Accept: text/event-stream, one server-sent event each (named by the case that is set, its data that case's JSON; a failure after the first is an \`error\` event with the error body); otherwise gathered in order under \`events\`. ${comments[b.method.output.typeName] ?? ""}`.trim(),
      content: {
        "application/json": {
          schema: {
            type: "object",
            properties: { events: { type: "array", items: ref(b.method.output) } },
          },
        },
        "text/event-stream": { schema: { type: "string" } },
      },
    };
  return {
    description: comments[b.method.output.typeName] ?? "ok",
    content: { "application/json": { schema: ref(b.method.output) } },
  };
}

function addSchema(desc: DescMessage, schemas: Record<string, Schema>): void {
  if (schemas[desc.typeName]) return;
  schemas[desc.typeName] = {};
  const ref = (d: DescMessage): Schema => {
    addSchema(d, schemas);
    return { $ref: `#/components/schemas/${d.typeName}` };
  };
  schemas[desc.typeName] = objectSchema(desc, ref, []);
}

/** A message as a JSON object, without the fields named in `omit` (those bound in the path). */
function objectSchema(desc: DescMessage, ref: (d: DescMessage) => Schema, omit: string[]): Schema {
  const fields = desc.fields.filter((f) => !omit.includes(f.name));
  const required = fields
    .filter((f) => (getOption(f, rulesOption) as FieldRules | undefined)?.required)
    .map((f) => f.name);
  return {
    type: "object",
    ...describedBy(comments[desc.typeName]),
    additionalProperties: false,
    properties: Object.fromEntries(fields.map((f) => [f.name, propertySchema(f, ref)])),
    ...(required.length ? { required } : {}),
  };
}

/** A field's schema with its comment; OpenAPI 3.1 keeps a description beside a $ref. */
function propertySchema(field: DescField, ref: (d: DescMessage) => Schema): Schema {
  const schema = fieldSchema(field, ref);
  const text = fieldComment(field);
  return text ? { ...schema, description: text } : schema;
}

/** The field's comment, and for an enum the meaning of each value its comments give. */
function fieldComment(field: DescField): string | undefined {
  const own = comments[`${field.parent.typeName}.${field.name}`];
  // A list of enums or a map to enums names its enum too (field.enum), like a single one.
  const e = field.enum;
  return paragraphs(own, e && enumValuesText(e));
}

function enumValuesText(e: DescEnum): string | undefined {
  const lines = e.values
    .filter((v) => v.number !== 0)
    .map((v) => {
      const text = comments[`${e.typeName}.${v.name}`];
      return `- \`${enumValueWireName(e, v.name)}\`${text ? `: ${text.replace(/\n/g, " ")}` : ""}`;
    });
  return paragraphs(comments[e.typeName], lines.join("\n"));
}

function authSentence(policy: AuthPolicy | undefined): string {
  const mode = policy?.mode ?? AuthMode.USER;
  if (mode === AuthMode.PUBLIC) return "Public: no token needed.";
  const who =
    mode === AuthMode.MACHINE ? "a machine token (client_credentials)" : "a user's access token";
  const scopes = policy?.scopes.length
    ? ` with the scopes ${policy.scopes.map((s) => `\`${s}\``).join(", ")}`
    : "";
  const extra = [
    policy?.stepUp ? "a fresh MFA sign-in (step-up)" : "",
    policy?.allowAgent ? "an agent acting for a user may call it" : "",
    policy?.membershipOptional
      ? "no membership row needed (accepting an invite is how one gets one)"
      : "",
  ].filter(Boolean);
  return `Needs ${who}${scopes}${extra.length ? `; ${extra.join("; ")}` : ""}.`;
}

function paragraphs(...parts: Array<string | undefined | false>): string | undefined {
  const kept = parts.filter((p): p is string => !!p);
  return kept.length ? kept.join("\n\n") : undefined;
}

function describedBy(text: string | undefined): Schema {
  return text ? { description: text } : {};
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
      return { type: "array", items, ...(rule?.maxItems ? { maxItems: rule.maxItems } : {}) };
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
