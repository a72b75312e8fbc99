import { createRegistry, fromBinary, toJson, type JsonValue } from "@bufbuild/protobuf";
import { file_svc_events_v1_events } from "@svc/gen/svc/events/v1/events_pb.js";

const registry = createRegistry(file_svc_events_v1_events);

/**
 * What a person reading the log needs of a domain event: its short name and its scalar fields
 * (ids, slugs, actions, scopes), with nested messages flattened one level (`actor.subject`).
 * Bulky fields (returns, lists) are left out. An event this build does not know is named only.
 */
export function describeEvent(type: string, payload: Uint8Array): Record<string, unknown> {
  const event = type.slice(type.lastIndexOf(".") + 1);
  const schema = registry.getMessage(type);
  if (!schema) return { event };
  let json: JsonValue;
  try {
    json = toJson(schema, fromBinary(schema, payload), { useProtoFieldName: true });
  } catch {
    return { event };
  }
  const fields: Record<string, unknown> = { event };
  for (const [key, value] of Object.entries(json as Record<string, JsonValue>)) {
    if (isScalar(value)) fields[key] = value;
    else if (value && typeof value === "object" && !Array.isArray(value))
      for (const [inner, v] of Object.entries(value))
        if (isScalar(v)) fields[`${key}.${inner}`] = v;
  }
  return fields;
}

function isScalar(value: JsonValue | undefined): value is string | number | boolean {
  return typeof value === "string" ? value.length <= 200 : typeof value !== "object";
}
