import {
  toJson,
  type DescEnum,
  type DescMessage,
  type JsonObject,
  type JsonValue,
  type MessageShape,
} from "@bufbuild/protobuf";
import { enumValueWireName } from "./validate-message.js";

/**
 * A response message as the REST API answers it: field names as in the proto, every field
 * present, enum values spelled as the spec does. Every JSON a person or a model reads (the
 * gateway's answers, the MCP tools') goes through it, so the two never disagree.
 */
export function toWireJson<D extends DescMessage>(desc: D, msg: MessageShape<D>): JsonObject {
  const json = toJson(desc, msg, { useProtoFieldName: true, alwaysEmitImplicit: true });
  return protoJsonToWire(desc, json) as JsonObject;
}

/**
 * Rewrites protobuf's canonical JSON of a response into the wire spelling: enum names to the
 * spec's values ("BOT_KIND_TRADING" -> "trading"), unspecified enums to null.
 */
export function protoJsonToWire(desc: DescMessage, json: JsonValue): JsonValue {
  if (!isObject(json)) return json;
  for (const field of desc.fields) {
    const v = json[field.name];
    // An unset message field is null on the wire, so every response has one stable shape
    // (an expires_at of null means "never", as the spec says).
    if (v === undefined && field.fieldKind === "message" && !field.oneof) json[field.name] = null;
    if (v === undefined || v === null) continue;
    if (field.fieldKind === "enum") json[field.name] = enumOut(field.enum, v);
    else if (field.fieldKind === "message" && !isWellKnown(field.message))
      protoJsonToWire(field.message, v);
    else if (field.fieldKind === "list" && Array.isArray(v)) {
      if (field.listKind === "enum") json[field.name] = v.map((item) => enumOut(field.enum, item));
      else if (field.listKind === "message" && !isWellKnown(field.message))
        v.forEach((item) => protoJsonToWire(field.message, item));
    } else if (field.fieldKind === "map" && isObject(v)) {
      for (const [k, item] of Object.entries(v)) {
        if (field.mapKind === "enum") v[k] = enumOut(field.enum, item);
        else if (field.mapKind === "message" && !isWellKnown(field.message))
          protoJsonToWire(field.message, item);
      }
    }
  }
  return json;
}

// Per enum, its values' wire names by proto name and by number (unspecified: null), built once.
const enumOutOf = new WeakMap<DescEnum, Map<string | number, string | null>>();

function enumOut(desc: DescEnum, value: JsonValue): JsonValue {
  let names = enumOutOf.get(desc);
  if (!names) {
    names = new Map();
    for (const v of desc.values) {
      const wire = v.number === 0 ? null : enumValueWireName(desc, v.name);
      names.set(v.name, wire);
      names.set(v.number, wire);
    }
    enumOutOf.set(desc, names);
  }
  return typeof value === "string" || typeof value === "number" ? (names.get(value) ?? null) : null;
}

function isWellKnown(desc: DescMessage): boolean {
  return desc.file.proto.package === "google.protobuf";
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}
