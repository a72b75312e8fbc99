import type { PromotionKindName } from "./gates.js";

/** Whether a human must approve a request, and the policy that said so (kept in the decision log). */
export interface HumanReview {
  required: boolean;
  policy: string;
}

/**
 * The submitter does not decide whether a human looks: waiving the approval is honoured only for
 * a kind the operator listed in SVC_PROMOTION_SKIP_HUMAN_KINDS, and never for a request an agent
 * submitted (an agent must not clear its own path to live).
 */
export function humanReview(
  kind: PromotionKindName,
  asked: boolean | undefined,
  submittedByAgent: boolean,
  skipHumanKinds: readonly string[],
): HumanReview {
  const listed = skipHumanKinds.length > 0 ? skipHumanKinds.join(",") : "(empty)";
  if (asked !== false)
    return { required: true, policy: "a human approves: the request did not ask to skip it" };
  if (submittedByAgent)
    return {
      required: true,
      policy:
        "a human approves: an agent submitted the request, and an agent's request never skips human approval",
    };
  if (!skipHumanKinds.includes(kind))
    return {
      required: true,
      policy: `a human approves: requires_human_approval=false is not honoured for ${kind} (SVC_PROMOTION_SKIP_HUMAN_KINDS=${listed})`,
    };
  return {
    required: false,
    policy: `no human approval: requires_human_approval=false honoured for ${kind} by SVC_PROMOTION_SKIP_HUMAN_KINDS=${listed}`,
  };
}
