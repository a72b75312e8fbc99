import {
  getOption,
  isFieldSet,
  isMessage,
  toJson,
  type DescEnum,
  type DescField,
  type DescMessage,
  type Message,
} from "@bufbuild/protobuf";
import {
  rules as rulesOption,
  wire_upper_case as wireUpperCase,
  type FieldRules,
} from "@svc/gen/svc/api/v1/annotations_pb.js";
import { invalidField } from "../errors/index.js";

/**
 * Checks a decoded request against the `(svc.api.v1.rules)` field options and against the enum
 * value sets, whichever transport carried it: gRPC callers get the same 400s as REST callers.
 * Every string anywhere in the tree (nested, repeated, map keys and values, Struct contents) is
 * also refused if it holds a NUL character: Postgres cannot store one in text, and finding out
 * in the middle of a handler's writes would answer 500 with half the work done.
 * Throws an `invalid_argument` ConnectError naming the field path in the spec's snake_case.
 *
 * @example validateMessage(CreateBotRequestSchema, req); // throws on spec.name missing
 */
export function validateMessage(desc: DescMessage, message: Message, path = ""): void {
  const msg = message as unknown as Record<string, unknown>;
  for (const field of desc.fields) {
    const fieldPath = path ? `${path}.${field.name}` : field.name;
    const value = field.oneof ? oneofValue(msg, field) : msg[field.localName];
    const rule = fieldRules(field);
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

function checkValue(
  field: DescField,
  value: unknown,
  rule: FieldRules | undefined,
  path: string,
): void {
  switch (field.fieldKind) {
    case "scalar":
      checkScalar(value, rule, path);
      return;
    case "enum":
      checkEnum(field.enum, value as number, path);
      return;
    case "message":
      checkMessage(field.message, value, path);
      return;
    case "list":
      if (rule?.maxItems && (value as unknown[]).length > rule.maxItems)
        throw invalidField(
          path,
          `${path} has ${(value as unknown[]).length} items; at most ${rule.maxItems} are allowed`,
          { max_items: rule.maxItems },
        );
      (value as unknown[]).forEach((item, i) => {
        const itemPath = `${path}[${i}]`;
        if (field.listKind === "message") checkMessage(field.message, item, itemPath);
        else if (field.listKind === "enum") checkEnum(field.enum, item as number, itemPath);
        else checkScalar(item, rule, itemPath);
      });
      return;
    case "map":
      for (const [key, item] of Object.entries(value as Record<string, unknown>)) {
        checkMapKey(key, path);
        const itemPath = `${path}.${key}`;
        if (field.mapKind === "message") checkMessage(field.message, item, itemPath);
        else if (field.mapKind === "enum") checkEnum(field.enum, item as number, itemPath);
        else checkScalar(item, undefined, itemPath);
      }
      return;
  }
}

/**
 * Our messages get their rules; well-known ones carry no rules but may still carry text:
 * protobuf-es hands a Struct field over as plain JSON, a wrapper as its bare value, and a
 * Value or ListValue as a message whose JSON form names the nested places best.
 */
function checkMessage(desc: DescMessage, value: unknown, path: string): void {
  if (!isWellKnown(desc)) return validateMessage(desc, value as Message, path);
  if (!isMessage(value)) return checkJsonText(value, path);
  if (JSON_SHAPED.has(desc.typeName)) return checkJsonText(jsonOf(desc, value, path), path);
  validateMessage(desc, value, path);
}

/** A binary caller can send a Value JSON has no spelling for (NaN, no kind); that is bad input too. */
function jsonOf(desc: DescMessage, value: Message, path: string): unknown {
  try {
    return toJson(desc, value);
  } catch (err) {
    throw invalidField(path, `${path} is not a valid JSON value: ${(err as Error).message}`);
  }
}

const JSON_SHAPED = new Set([
  "google.protobuf.Struct",
  "google.protobuf.Value",
  "google.protobuf.ListValue",
]);

function checkJsonText(value: unknown, path: string): void {
  if (typeof value === "string") return checkNoNul(value, path);
  if (Array.isArray(value)) return value.forEach((item, i) => checkJsonText(item, `${path}[${i}]`));
  if (typeof value !== "object" || value === null) return;
  for (const [key, item] of Object.entries(value)) {
    checkMapKey(key, path);
    checkJsonText(item, `${path}.${key}`);
  }
}

/** A key with a NUL would also put the NUL into the field path; name the object holding it instead. */
function checkMapKey(key: string, path: string): void {
  if (key.includes(NUL))
    throw invalidField(
      path,
      `a key of ${path} contains the NUL character (U+0000), which cannot be stored; remove it`,
    );
}

const NUL = "\u0000";

function checkNoNul(value: string, path: string): void {
  if (value.includes(NUL))
    throw invalidField(
      path,
      `${path} contains the NUL character (U+0000), which cannot be stored; remove it`,
    );
}

function checkScalar(value: unknown, rule: FieldRules | undefined, path: string): void {
  if (typeof value === "string") checkNoNul(value, path);
  if (!rule) return;
  if (typeof value === "string") {
    if (rule.maxLen > 0 && value.length > rule.maxLen) {
      throw invalidField(
        path,
        `${path} is ${value.length} characters long; at most ${rule.maxLen} are allowed`,
        { max_len: rule.maxLen },
      );
    }
    if (rule.pattern && !new RegExp(rule.pattern, "u").test(value)) {
      throw invalidField(
        path,
        `${path}=${JSON.stringify(truncate(value))} does not match ${rule.pattern}`,
        { pattern: rule.pattern },
      );
    }
    return;
  }
  if (typeof value === "number" || typeof value === "bigint") {
    const n = Number(value);
    if (!Number.isFinite(n)) throw invalidField(path, `${path} must be a finite number`);
    if (rule.min !== undefined && n < rule.min)
      throw invalidField(path, `${path}=${n} is below the minimum ${rule.min}`, { min: rule.min });
    if (rule.max !== undefined && n > rule.max)
      throw invalidField(path, `${path}=${n} is above the maximum ${rule.max}`, { max: rule.max });
  }
}

function checkEnum(enumDesc: DescEnum, value: number, path: string): void {
  if (!enumDesc.values.some((v) => v.number === value)) {
    const allowed = allowedEnumWireValues(enumDesc);
    throw invalidField(path, `${path} must be one of ${allowed.join(", ")}`, { allowed });
  }
}

// What is read from descriptor options is read once per process: reading options decodes them,
// and every enum value of every answer and every field of every request asks.
const rulesOf = new WeakMap<DescField, FieldRules | undefined>();
const wireNamesOf = new WeakMap<DescEnum, Map<string, string>>();
const allowedOf = new WeakMap<DescEnum, readonly string[]>();

/** The `(svc.api.v1.rules)` of a field, if any. */
export function fieldRules(field: DescField): FieldRules | undefined {
  if (!rulesOf.has(field)) rulesOf.set(field, getOption(field, rulesOption) as FieldRules);
  return rulesOf.get(field);
}

/** The spec's spelling of an enum's values: BOT_KIND_TRADING -> trading, unspecified left out. */
export function allowedEnumWireValues(enumDesc: DescEnum): string[] {
  let allowed = allowedOf.get(enumDesc);
  if (!allowed) {
    allowed = enumDesc.values
      .filter((v) => v.number !== 0)
      .map((v) => enumValueWireName(enumDesc, v.name));
    allowedOf.set(enumDesc, allowed);
  }
  return [...allowed];
}

/** Wire name of one enum value, per the `wire_upper_case` enum option. */
export function enumValueWireName(enumDesc: DescEnum, protoName: string): string {
  let names = wireNamesOf.get(enumDesc);
  if (!names) {
    const upper = getOption(enumDesc, wireUpperCase) === true;
    names = new Map(
      enumDesc.values.map((v) => [v.name, upper ? v.localName : v.localName.toLowerCase()]),
    );
    wireNamesOf.set(enumDesc, names);
  }
  const known = names.get(protoName);
  if (known !== undefined) return known;
  return getOption(enumDesc, wireUpperCase) === true ? protoName : protoName.toLowerCase();
}

function isWellKnown(desc: DescMessage): boolean {
  return desc.file.proto.package === "google.protobuf";
}

function truncate(s: string): string {
  return s.length > 64 ? `${s.slice(0, 61)}...` : s;
}
