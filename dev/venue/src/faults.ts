/**
 * Switches a test turns on to see how a client copes. They act on every session at once and
 * from the next message on.
 */
export interface FaultSwitches {
  /** Every NewOrderSingle gets an ExecutionReport Rejected with a text saying so. */
  rejectNewOrders: boolean;
  /** Every ExecutionReport goes out twice: the same ExecID, the second with PossResend=Y. */
  duplicateExecutionReports: boolean;
  /**
   * ExecutionReports go out in swapped pairs: each is held until the next one has gone (or
   * 200 ms passed), so a client hears, say, a fill before the order's New.
   */
  reorderExecutionReports: boolean;
  /**
   * Every ExecutionReport goes out with a MsgSeqNum one past the due one, so the client sees a
   * gap, sends a ResendRequest, and the venue resends what it stored (PossDupFlag=Y) and fills
   * the missing number with a SequenceReset-GapFill.
   */
  gapSequenceNumbers: boolean;
  /** Every ExecutionReport goes out this many milliseconds late (order kept). */
  delayExecutionReportsMs: number;
  /** Sessions stop answering anything, heartbeats and test requests included. */
  hang: boolean;
}

export const noFaults = (): FaultSwitches => ({
  rejectNewOrders: false,
  duplicateExecutionReports: false,
  reorderExecutionReports: false,
  gapSequenceNumbers: false,
  delayExecutionReportsMs: 0,
  hang: false,
});

const MAX_DELAY_MS = 600_000;

/** Checks a partial update from the control endpoint; throws a message a person can act on. */
export function parseFaultUpdate(input: unknown): Partial<FaultSwitches> {
  if (typeof input !== "object" || input === null || Array.isArray(input))
    throw new Error("expected a JSON object of fault switches");
  const out: Partial<FaultSwitches> = {};
  for (const [key, value] of Object.entries(input)) {
    switch (key) {
      case "rejectNewOrders":
      case "duplicateExecutionReports":
      case "reorderExecutionReports":
      case "gapSequenceNumbers":
      case "hang":
        if (typeof value !== "boolean") throw new Error(`${key} must be true or false`);
        out[key] = value;
        break;
      case "delayExecutionReportsMs":
        if (
          typeof value !== "number" ||
          !Number.isInteger(value) ||
          value < 0 ||
          value > MAX_DELAY_MS
        )
          throw new Error(`${key} must be an integer from 0 to ${MAX_DELAY_MS}`);
        out[key] = value;
        break;
      default:
        throw new Error(
          `unknown switch ${JSON.stringify(key)}; known: rejectNewOrders, duplicateExecutionReports, reorderExecutionReports, gapSequenceNumbers, delayExecutionReportsMs, hang`,
        );
    }
  }
  return out;
}
