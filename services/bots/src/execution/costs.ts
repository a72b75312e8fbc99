import type { Side } from "./events.js";

/** What a simulated fill costs: slippage and a fee, in basis points (the BotSpec's engine settings). */
export interface Costs {
  feeBps: number;
  slippageBps: number;
  /**
   * Most of a bar's volume the fills of that bar may take, in (0, 1] (engine
   * max_volume_participation of the BotSpec); unset or 0, fills ignore volume.
   */
  maxVolumeParticipation?: number;
}

/** The price a market order gets: moved against the trader by the slippage. */
export function slipped(side: Side, price: number, slippageBps: number): number {
  return price * (side === "buy" ? 1 + slippageBps / 10_000 : 1 - slippageBps / 10_000);
}

/** The fee of a fill: a fraction of its notional. */
export function feeOf(units: number, price: number, feeBps: number): number {
  return units * price * (feeBps / 10_000);
}
