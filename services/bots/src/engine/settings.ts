import { EngineInputError } from "./engine-error.js";

/** Costs and sizing of a simulated run, from the BotSpec's engine settings. */
export interface EngineSettings {
  initialCash: number;
  feeBps: number;
  slippageBps: number;
  /** Fraction of equity a full (target 1) position takes. */
  positionSize: number;
}

export const DEFAULT_ENGINE_SETTINGS: EngineSettings = {
  initialCash: 100_000,
  feeBps: 0,
  slippageBps: 0,
  positionSize: 1,
};

/** Fills the spec's zero values with defaults (proto3 cannot tell 0 from unset for cash and size). */
export function engineSettingsFrom(
  spec:
    | { initialCash?: number; feeBps?: number; slippageBps?: number; positionSize?: number }
    | undefined,
): EngineSettings {
  const s = {
    initialCash: spec?.initialCash || DEFAULT_ENGINE_SETTINGS.initialCash,
    feeBps: spec?.feeBps ?? 0,
    slippageBps: spec?.slippageBps ?? 0,
    positionSize: spec?.positionSize || DEFAULT_ENGINE_SETTINGS.positionSize,
  };
  if (!(s.initialCash > 0))
    throw new EngineInputError(
      "invalid_parameter",
      "engine.initial_cash must be positive",
      "engine.initial_cash",
    );
  return s;
}
