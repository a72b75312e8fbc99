import type { FleetFigures } from "../execution/risk-controls/index.js";

/**
 * What each running session of a fleet holds and has lost, as of its last bar: the fleet
 * thresholds judge a bot's order against the sum of the others. It knows the sessions of this
 * process only; runner processes each keep their own (see docs/risk-controls.md).
 */
export class FleetBook {
  private readonly fleets = new Map<string, Map<string, FleetFigures>>();

  report(fleet: string, taskId: string, figures: FleetFigures): void {
    let members = this.fleets.get(fleet);
    if (!members) this.fleets.set(fleet, (members = new Map()));
    members.set(taskId, figures);
  }

  /** The sum over the fleet's sessions other than `taskId`. */
  others(fleet: string, taskId: string): FleetFigures {
    let exposure = 0;
    let loss = 0;
    for (const [id, f] of this.fleets.get(fleet) ?? []) {
      if (id === taskId) continue;
      exposure += f.exposure;
      loss += f.loss;
    }
    return { exposure, loss };
  }

  drop(taskId: string): void {
    for (const members of this.fleets.values()) members.delete(taskId);
  }
}
