import { sameSubject } from "@svc/lib/auth";
import type { PromotionStatusName } from "../store/promotion.table.js";

/** A refused human decision, with the stable code the gateway maps to the spec's status. */
export interface DecisionRefusal {
  code: "request_expired" | "invalid_transition" | "four_eyes_violation" | "agent_not_allowed";
  message: string;
}

export type HumanAction = "approve" | "reject" | "revoke";

/** Who decides: the human subject behind the token, and whether an agent carries it. */
export interface Decider {
  humanSub: string;
  isAgent: boolean;
  /** The identity service's internal user the token named, when it named one. */
  internalUserId?: string;
}

/** Who submitted: the subject as the token gave it and, when the token named one, the internal user. */
export interface Submitter {
  sub: string;
  internalUserId?: string | null;
}

/**
 * Whether the decider may be the submitter. People, not strings: subjects are compared by their
 * confusable skeletons (sameSubject), and where the identity service named the internal user
 * behind both tokens, two different subjects of one internal user are one person too.
 */
function samePerson(submitter: Submitter, decider: Decider): boolean {
  if (sameSubject(decider.humanSub, submitter.sub)) return true;
  return (
    !!submitter.internalUserId &&
    !!decider.internalUserId &&
    submitter.internalUserId === decider.internalUserId
  );
}

const FROM: Record<HumanAction, PromotionStatusName> = {
  approve: "pending",
  reject: "pending",
  revoke: "promoted",
};
export const TO: Record<HumanAction, PromotionStatusName> = {
  approve: "approved",
  reject: "rejected",
  revoke: "revoked",
};

/**
 * The human decisions of the spec's transition table. An expired request answers 410 to approve
 * and reject; only a pending request is approved or rejected, only a promoted one revoked (any
 * other is left unchanged); an agent never decides; the approver is not the submitter, compared
 * as people (samePerson) so case, invisible characters, look-alikes or a second account of one
 * internal user do not make a second person.
 */
export function decisionRefusal(
  action: HumanAction,
  status: PromotionStatusName,
  submitter: Submitter,
  decider: Decider,
): DecisionRefusal | null {
  if (decider.isAgent)
    return {
      code: "agent_not_allowed",
      message: `an agent cannot ${action} a promotion request; a person must`,
    };
  if (status === "expired" && action !== "revoke")
    return {
      code: "request_expired",
      message: `the request expired before a decision; it can no longer be ${action === "approve" ? "approved" : "rejected"}`,
    };
  if (status !== FROM[action]) {
    return {
      code: "invalid_transition",
      message: `only a ${FROM[action]} request can be ${TO[action]}; this one is ${status} and stays ${status}`,
    };
  }
  if (action === "approve" && samePerson(submitter, decider)) {
    return {
      code: "four_eyes_violation",
      message: `four eyes: ${JSON.stringify(decider.humanSub)} is the person who submitted this request (as ${JSON.stringify(submitter.sub)}) and cannot approve it; another person must`,
    };
  }
  return null;
}
