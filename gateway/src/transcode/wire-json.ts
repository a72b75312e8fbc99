import {
  ScalarType,
  type DescEnum,
  type DescField,
  type DescMessage,
  type JsonObject,
  type JsonValue,
} from "@bufbuild/protobuf";
import { allowedEnumWireValues } from "@svc/lib/validate";

/** A request input problem, reported as 400 with the field named. */
export class WireInputError extends Error {
  readonly code = "invalid_argument";
  constructor(
    message: string,
    readonly field: string,
    readonly extra: JsonObject = {},
  ) {
    super(message);
  }
}

/** Where a value came from: query strings carry every scalar as text. */
export type WireSource = "body" | "query";

/**
 * Checks a JSON value from the wire against a message descriptor and rewrites it into protobuf's
 * canonical JSON: spec-style enum values ("trading") become proto names ("BOT_KIND_TRADING"),
 * query-string scalars become typed. Unknown fields, wrong types and enum values outside the set
 * are refused here, naming the field, so `fromJson` never sees them.
 */
export function wireToProtoJson(
  desc: DescMessage,
  value: unknown,
  path: string,
  source: WireSource,
): JsonObject {
  if (!isObject(value))
    throw new WireInputError(`${label(path)} must be a JSON object`, path || "body");
  const out: JsonObject = {};
  for (const [key, item] of Object.entries(value)) {
    const field = desc.fields.find((f) => f.name === key || f.jsonName === key);
    const fieldPath = path ? `${path}.${key}` : key;
    if (!field) {
      throw new WireInputError(
        `unknown field ${fieldPath}; known fields here: ${desc.fields.map((f) => f.name).join(", ")}`,
        fieldPath,
      );
    }
    if (item === null) continue;
    out[field.name] = fieldValue(field, item, fieldPath, source);
  }
  return out;
}

function fieldValue(field: DescField, value: unknown, path: string, source: WireSource): JsonValue {
  switch (field.fieldKind) {
    case "scalar":
      return scalar(field.scalar, value, path, source);
    case "enum":
      return enumIn(field.enum, value, path);
    case "message":
      return messageIn(field.message, value, path, source);
    case "list": {
      const items = source === "query" && !Array.isArray(value) ? [value] : value;
      if (!Array.isArray(items)) throw new WireInputError(`${path} must be an array`, path);
      return items.map((item, i) => {
        const itemPath = `${path}[${i}]`;
        if (field.listKind === "scalar") return scalar(field.scalar, item, itemPath, source);
        if (field.listKind === "enum") return enumIn(field.enum, item, itemPath);
        return messageIn(field.message, item, itemPath, source);
      });
    }
    case "map": {
      if (!isObject(value)) throw new WireInputError(`${path} must be a JSON object`, path);
      const out: JsonObject = {};
      for (const [k, item] of Object.entries(value)) {
        const itemPath = `${path}.${k}`;
        if (field.mapKind === "scalar") out[k] = scalar(field.scalar, item, itemPath, source);
        else if (field.mapKind === "enum") out[k] = enumIn(field.enum, item, itemPath);
        else out[k] = messageIn(field.message, item, itemPath, source);
      }
      return out;
    }
  }
}

function messageIn(desc: DescMessage, value: unknown, path: string, source: WireSource): JsonValue {
  switch (desc.typeName) {
    case "google.protobuf.Struct":
      if (!isObject(value)) throw new WireInputError(`${path} must be a JSON object`, path);
      return value as JsonObject;
    case "google.protobuf.Value":
      return value as JsonValue;
    case "google.protobuf.ListValue":
      if (!Array.isArray(value)) throw new WireInputError(`${path} must be an array`, path);
      return value as JsonValue;
    case "google.protobuf.Timestamp":
      if (typeof value !== "string" || Number.isNaN(Date.parse(value))) {
        throw new WireInputError(
          `${path} must be an RFC 3339 timestamp such as 2026-01-31T00:00:00Z`,
          path,
        );
      }
      return value;
    case "google.protobuf.Duration":
      if (typeof value !== "string" || !/^-?\d+(\.\d+)?s$/.test(value))
        throw new WireInputError(`${path} must be a duration in seconds such as "90s"`, path);
      return value;
  }
  if (desc.file.proto.package === "google.protobuf") return value as JsonValue;
  return wireToProtoJson(desc, value, path, source);
}

function enumIn(desc: DescEnum, value: unknown, path: string): JsonValue {
  const allowed = allowedEnumWireValues(desc);
  if (typeof value === "string") {
    const match = desc.values.find(
      (v) =>
        v.number !== 0 && (v.localName.toLowerCase() === value.toLowerCase() || v.name === value),
    );
    if (match) return match.name;
  }
  throw new WireInputError(
    `${path} must be one of ${allowed.join(", ")}; got ${JSON.stringify(value)}`,
    path,
    { allowed },
  );
}

const INT32 = new Set([
  ScalarType.INT32,
  ScalarType.SINT32,
  ScalarType.SFIXED32,
  ScalarType.UINT32,
  ScalarType.FIXED32,
]);
const INT64 = new Set([
  ScalarType.INT64,
  ScalarType.SINT64,
  ScalarType.SFIXED64,
  ScalarType.UINT64,
  ScalarType.FIXED64,
]);

function scalar(type: ScalarType, value: unknown, path: string, source: WireSource): JsonValue {
  const v = source === "query" && typeof value === "string" ? coerceQuery(type, value) : value;
  if (type === ScalarType.STRING) {
    if (typeof v !== "string") throw typeError(path, "a string", value);
    return v;
  }
  if (type === ScalarType.BOOL) {
    if (typeof v !== "boolean") throw typeError(path, "true or false", value);
    return v;
  }
  if (type === ScalarType.BYTES) {
    if (typeof v !== "string") throw typeError(path, "a base64 string", value);
    return v;
  }
  if (INT32.has(type) || INT64.has(type)) {
    const n = typeof v === "string" && INT64.has(type) && /^-?\d+$/.test(v) ? Number(v) : v;
    if (typeof n !== "number" || !Number.isInteger(n))
      throw typeError(path, "a whole number", value);
    const unsigned =
      type === ScalarType.UINT32 ||
      type === ScalarType.FIXED32 ||
      type === ScalarType.UINT64 ||
      type === ScalarType.FIXED64;
    if (unsigned && n < 0) throw new WireInputError(`${path} must not be negative`, path);
    if (INT32.has(type) && (n > 2 ** 31 - 1 || n < -(2 ** 31)))
      throw new WireInputError(`${path} is out of range for a 32-bit integer`, path);
    return INT64.has(type) ? String(v) : n;
  }
  if (typeof v !== "number" || !Number.isFinite(v)) throw typeError(path, "a number", value);
  return v;
}

function coerceQuery(type: ScalarType, value: string): unknown {
  if (type === ScalarType.STRING || type === ScalarType.BYTES) return value;
  if (type === ScalarType.BOOL) return value === "true" ? true : value === "false" ? false : value;
  return value.trim() !== "" && Number.isFinite(Number(value)) ? Number(value) : value;
}

function typeError(path: string, expected: string, got: unknown): WireInputError {
  return new WireInputError(`${path} must be ${expected}; got ${describe(got)}`, path, {
    expected,
  });
}

function describe(v: unknown): string {
  if (Array.isArray(v)) return "an array";
  if (v === null) return "null";
  if (typeof v === "object") return "an object";
  return `${typeof v} ${JSON.stringify(v)}`;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

function label(path: string): string {
  return path ? path : "the request body";
}
