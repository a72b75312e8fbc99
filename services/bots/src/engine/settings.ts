import { EngineInputError } from "./engine-error.js";

/** Costs and sizing of a simulated run, from the BotSpec's engine settings. */
export interface EngineSettings {
  initialCash: number;
  feeBps: number;
  slippageBps: number;
  /** Fraction of equity a full (target 1) position takes. */
  positionSize: number;
  /**
   * Most of a bar's volume one bar's fills may take (see SimulatedBroker); unset, fills ignore
   * volume (the engine's own tests and benchmarks). A bot's runs always set it (see below).
   */
  maxVolumeParticipation?: number;
}

/**
 * A bot's runs fill at most the whole of a bar's volume unless its spec asks for less
 * (engine.max_volume_participation): a fill larger than what the market traded cannot happen,
 * and a smaller share is a choice of the bot's owner. Over the bundled data a bot's orders are
 * well under 1 % of a bar's volume, so only a run that trades the whole bar notices it.
 */
export const DEFAULT_MAX_VOLUME_PARTICIPATION = 1;

export const DEFAULT_ENGINE_SETTINGS: EngineSettings = {
  initialCash: 100_000,
  feeBps: 0,
  slippageBps: 0,
  positionSize: 1,
};

/** Fills the spec's zero values with defaults (proto3 cannot tell 0 from unset for cash and size). */
export function engineSettingsFrom(
  spec:
    | {
        initialCash?: number;
        feeBps?: number;
        slippageBps?: number;
        positionSize?: number;
        maxVolumeParticipation?: number;
      }
    | undefined,
): EngineSettings {
  const s = {
    initialCash: spec?.initialCash || DEFAULT_ENGINE_SETTINGS.initialCash,
    feeBps: spec?.feeBps ?? 0,
    slippageBps: spec?.slippageBps ?? 0,
    positionSize: spec?.positionSize || DEFAULT_ENGINE_SETTINGS.positionSize,
    maxVolumeParticipation: spec?.maxVolumeParticipation || DEFAULT_MAX_VOLUME_PARTICIPATION,
  };
  if (!(s.initialCash > 0))
    throw new EngineInputError(
      "invalid_parameter",
      "engine.initial_cash must be positive",
      "engine.initial_cash",
    );
  return s;
}
