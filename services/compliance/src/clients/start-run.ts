import { Code, ConnectError, type Client } from "@connectrpc/connect";
import {
  ComplianceRunKind,
  type BotsService,
  type ComplianceRun,
} from "@svc/gen/svc/bots/v1/bots_pb.js";
import { svcError } from "@svc/lib/errors";

/** Starts a run in the bots service, the owner of the one execution model. */
export type StartRun = (r: {
  botRef: string;
  kind: "conformance" | "stress";
  peakMultiple: number;
  requestedBy: string;
}) => Promise<ComplianceRun>;

/** Codes that mean the bots service did not answer, as opposed to answering no. */
const UNANSWERED = new Set([Code.Unavailable, Code.DeadlineExceeded, Code.Unknown, Code.Internal]);

/**
 * Asks the bots service over Connect, with a deadline. Its refusals (unknown bot, no strategy,
 * a bad multiple) pass through as they are; a bots service that does not answer in time is a
 * 503 with Retry-After: the request wrote nothing here, and it may be sent again.
 */
export function startRunFrom(client: Client<typeof BotsService>, timeoutMs: number): StartRun {
  return async (r) => {
    try {
      return await client.startComplianceRun(
        {
          botRef: r.botRef,
          kind: r.kind === "conformance" ? ComplianceRunKind.CONFORMANCE : ComplianceRunKind.STRESS,
          peakMultiple: r.peakMultiple,
          requestedBy: r.requestedBy,
        },
        { timeoutMs },
      );
    } catch (err) {
      if (err instanceof ConnectError && !UNANSWERED.has(err.code)) throw err;
      throw svcError(
        Code.Unavailable,
        "bots_unreachable",
        "the bots service, which runs conformance and stress tests, did not answer; try again shortly",
        {},
        { cause: err, headers: { "retry-after": "5" } },
      );
    }
  };
}
