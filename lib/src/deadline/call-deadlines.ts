import { getOption, type DescMethod } from "@bufbuild/protobuf";
import { call_kind as callKindOption, CallKind } from "@svc/gen/svc/api/v1/annotations_pb.js";
import { policyOf } from "../auth/auth-policy.js";

/**
 * How long a caller waits for each kind of call, in one place (docs/operations.md "Deadlines"
 * prints this table). A hung or paused service costs its callers this long, not more: a read or a
 * halt a few seconds, so an operator learns at once that something is wrong and a halt is tried
 * elsewhere; a long operation what it needs.
 */
export const CALL_DEADLINES_MS: Readonly<Record<CallKindName, number>> = {
  read: 5_000,
  halt: 5_000,
  release: 5_000,
  write: 15_000,
  long: 120_000,
};

/**
 * How long a halt's membership check waits for the identity service before it takes the last
 * known memberships (docs/kill-switch.md): a halt never waits on identity longer than this.
 */
export const HALT_MEMBERSHIP_CHECK_MS = 1_000;

/**
 * How long any other membership check (a release's included) waits for the identity service
 * before it answers 503 membership_unverifiable.
 */
export const MEMBERSHIP_CHECK_MS = 2_000;

export type CallKindName = "read" | "halt" | "release" | "write" | "long";

const NAMES: Record<CallKind, CallKindName | undefined> = {
  [CallKind.UNSPECIFIED]: undefined,
  [CallKind.READ]: "read",
  [CallKind.WRITE]: "write",
  [CallKind.HALT]: "halt",
  [CallKind.LONG]: "long",
  [CallKind.RELEASE]: "release",
};

const known = new WeakMap<DescMethod, CallKindName>();

/**
 * The kind of an RPC: its `(svc.api.v1.call_kind)`, else read when its policy is read_only and
 * write otherwise.
 *
 * @example callKindOf(BotsService.method.haltAllBots) // "halt"
 */
export function callKindOf(method: DescMethod): CallKindName {
  let kind = known.get(method);
  if (!kind) {
    kind =
      NAMES[getOption(method, callKindOption)] ?? (policyOf(method).readOnly ? "read" : "write");
    known.set(method, kind);
  }
  return kind;
}

/** @example callDeadlineMs(BotsService.method.getBot) // 5000 */
export function callDeadlineMs(method: DescMethod): number {
  return CALL_DEADLINES_MS[callKindOf(method)];
}
