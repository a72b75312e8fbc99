import type { Refusal } from "../pre-trade.js";
import type { ControlName } from "./controls.js";

/** A control's refusal, naming it, its limit and what it saw. */
export function refuse(
  control: ControlName,
  limit: number | string,
  value: number | string,
  reason: string,
): Refusal {
  return { accept: false, control, limit, value, reason };
}
