/**
 * Where a deployment stands, as its row records it. `parked` is a paper session halted by a kill
 * switch: it restarts by itself when the switch is released. The API shows it as `halted` (the
 * spec's value) with `parked: true`; `halted` alone is final.
 */
export type DeploymentState = "pending" | "running" | "parked" | "success" | "failed" | "halted";

/**
 * The one definition of a live paper session: running, or parked until its kill switch is
 * released. A live session blocks another start of its bot, is resumed by a new host, and is what
 * a halt or a revocation stops.
 */
export const LIVE_SESSION_STATES = ["running", "parked"] as const satisfies DeploymentState[];

/** A backtest not finished yet: what a halt stops and what a dead process's successor re-runs. */
export const LIVE_BACKTEST_STATES = ["pending", "running"] as const satisfies DeploymentState[];

/** Whether a paper session in this state is live (see LIVE_SESSION_STATES). */
export function isLiveSession(state: DeploymentState): boolean {
  return (LIVE_SESSION_STATES as readonly DeploymentState[]).includes(state);
}
