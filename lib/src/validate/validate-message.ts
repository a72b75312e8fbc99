import { getOption, isFieldSet, type DescEnum, type DescField, type DescMessage, type Message } from "@bufbuild/protobuf";
import { rules as rulesOption, wire_upper_case as wireUpperCase, type FieldRules } from "@svc/gen/svc/api/v1/annotations_pb.js";
import { invalidField } from "../errors/index.js";

/**
 * Checks a decoded request against the `(svc.api.v1.rules)` field options and against the enum
 * value sets, whichever transport carried it: gRPC callers get the same 400s as REST callers.
 * Throws an `invalid_argument` ConnectError naming the field path in the spec's snake_case.
 *
 * @example validateMessage(CreateBotRequestSchema, req); // throws on spec.name missing
 */
export function validateMessage(desc: DescMessage, message: Message, path = ""): void {
  const msg = message as unknown as Record<string, unknown>;
  for (const field of desc.fields) {
    const fieldPath = path ? `${path}.${field.name}` : field.name;
    const value = field.oneof ? oneofValue(msg, field) : msg[field.localName];
    const rule = getOption(field, rulesOption) as FieldRules | undefined;
    const set = field.oneof ? value !== undefined : isFieldSet(message, field);
    if (rule?.required && !set) {
      throw invalidField(fieldPath, `${fieldPath} is required${requiredHint(field)}`);
    }
    if (!set) continue;
    checkValue(field, value, rule, fieldPath);
  }
}

function oneofValue(msg: Record<string, unknown>, field: DescField): unknown {
  const group = msg[field.oneof!.localName] as { case?: string; value?: unknown } | undefined;
  return group?.case === field.localName ? group.value : undefined;
}

function requiredHint(field: DescField): string {
  if (field.fieldKind === "enum") return `: one of ${allowedEnumWireValues(field.enum).join(", ")}`;
  return "";
}

function checkValue(field: DescField, value: unknown, rule: FieldRules | undefined, path: string): void {
  switch (field.fieldKind) {
    case "scalar":
      checkScalar(value, rule, path);
      return;
    case "enum":
      checkEnum(field.enum, value as number, path);
      return;
    case "message":
      if (!isWellKnown(field.message)) validateMessage(field.message, value as Message, path);
      return;
    case "list":
      (value as unknown[]).forEach((item, i) => {
        const itemPath = `${path}[${i}]`;
        if (field.listKind === "message" && !isWellKnown(field.message)) validateMessage(field.message, item as Message, itemPath);
        else if (field.listKind === "enum") checkEnum(field.enum, item as number, itemPath);
        else if (field.listKind === "scalar") checkScalar(item, rule, itemPath);
      });
      return;
    case "map":
      for (const [key, item] of Object.entries(value as Record<string, unknown>)) {
        const itemPath = `${path}.${key}`;
        if (field.mapKind === "message" && !isWellKnown(field.message)) validateMessage(field.message, item as Message, itemPath);
        else if (field.mapKind === "enum") checkEnum(field.enum, item as number, itemPath);
      }
      return;
  }
}

function checkScalar(value: unknown, rule: FieldRules | undefined, path: string): void {
  if (!rule) return;
  if (typeof value === "string") {
    if (rule.maxLen > 0 && value.length > rule.maxLen) {
      throw invalidField(path, `${path} is ${value.length} characters long; at most ${rule.maxLen} are allowed`, { max_len: rule.maxLen });
    }
    if (rule.pattern && !new RegExp(rule.pattern, "u").test(value)) {
      throw invalidField(path, `${path}=${JSON.stringify(truncate(value))} does not match ${rule.pattern}`, { pattern: rule.pattern });
    }
    return;
  }
  if (typeof value === "number" || typeof value === "bigint") {
    const n = Number(value);
    if (!Number.isFinite(n)) throw invalidField(path, `${path} must be a finite number`);
    if (rule.min !== undefined && n < rule.min) throw invalidField(path, `${path}=${n} is below the minimum ${rule.min}`, { min: rule.min });
    if (rule.max !== undefined && n > rule.max) throw invalidField(path, `${path}=${n} is above the maximum ${rule.max}`, { max: rule.max });
  }
}

function checkEnum(enumDesc: DescEnum, value: number, path: string): void {
  if (!enumDesc.values.some((v) => v.number === value)) {
    const allowed = allowedEnumWireValues(enumDesc);
    throw invalidField(path, `${path} must be one of ${allowed.join(", ")}`, { allowed });
  }
}

/** The spec's spelling of an enum's values: BOT_KIND_TRADING -> trading, unspecified left out. */
export function allowedEnumWireValues(enumDesc: DescEnum): string[] {
  return enumDesc.values.filter((v) => v.number !== 0).map((v) => enumValueWireName(enumDesc, v.name));
}

/** Wire name of one enum value, per the `wire_upper_case` enum option. */
export function enumValueWireName(enumDesc: DescEnum, protoName: string): string {
  const value = enumDesc.values.find((v) => v.name === protoName);
  const suffix = value ? value.localName : protoName;
  return getOption(enumDesc, wireUpperCase) === true ? suffix : suffix.toLowerCase();
}

function isWellKnown(desc: DescMessage): boolean {
  return desc.file.proto.package === "google.protobuf";
}

function truncate(s: string): string {
  return s.length > 64 ? `${s.slice(0, 61)}...` : s;
}
