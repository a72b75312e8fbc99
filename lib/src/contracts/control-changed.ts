import { randomUUID } from "node:crypto";
import { create, getOption, toBinary, type JsonObject, type JsonValue } from "@bufbuild/protobuf";
import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import type { Transaction } from "kysely";
import { ControlChangedSchema, event_subject } from "@svc/gen/svc/events/v1/events_pb.js";
import { enqueueEvent } from "../bus/index.js";

/** The controls whose change is material (RTS 6 Art. 9): the validation report is due again. */
export type ControlKind = "risk_limits" | "control_code" | "kill_switch_settings";

export interface ControlChange {
  kind: ControlKind;
  botId?: string;
  botSlug?: string;
  fleet?: string;
  version?: number;
  previousVersion?: number;
  actor: string;
  changedAt: Date;
  before: JsonObject;
  after: JsonObject;
}

const same = (a: JsonValue | undefined, b: JsonValue | undefined) =>
  JSON.stringify(a ?? null) === JSON.stringify(b ?? null);

/**
 * The settings that differ between two versions of a control, each side holding only those (a
 * setting one side lacks is null there); undefined when nothing differs.
 *
 * @example changedSettings({ a: 1, b: 2 }, { a: 1, b: 3 }) // { before: { b: 2 }, after: { b: 3 } }
 */
export function changedSettings(
  before: JsonObject,
  after: JsonObject,
): { before: JsonObject; after: JsonObject } | undefined {
  const keys = [...new Set([...Object.keys(before), ...Object.keys(after)])].sort();
  const changed = keys.filter((k) => !same(before[k], after[k]));
  if (changed.length === 0) return undefined;
  return {
    before: Object.fromEntries(changed.map((k) => [k, before[k] ?? null])),
    after: Object.fromEntries(changed.map((k) => [k, after[k] ?? null])),
  };
}

/**
 * Announces a material control change (ControlChanged) through the service's outbox, in the
 * transaction of the change itself: it is recorded exactly when the change is.
 */
export async function enqueueControlChange<DB>(
  trx: Transaction<DB>,
  schema: string,
  c: ControlChange,
): Promise<void> {
  await enqueueEvent(trx, schema, {
    subject: getOption(ControlChangedSchema, event_subject),
    type: ControlChangedSchema.typeName,
    payload: toBinary(
      ControlChangedSchema,
      create(ControlChangedSchema, {
        changeId: randomUUID(),
        kind: c.kind,
        botId: c.botId ?? "",
        botSlug: c.botSlug ?? "",
        fleet: c.fleet ?? "",
        version: c.version ?? 0,
        previousVersion: c.previousVersion ?? 0,
        actor: c.actor,
        changedAt: timestampFromDate(c.changedAt),
        before: c.before,
        after: c.after,
      }),
    ),
  });
}
