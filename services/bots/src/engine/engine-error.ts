/** Stable codes of engine input problems; the bots handlers answer them with 400. */
export type EngineErrorCode =
  | "invalid_parameter"
  | "unknown_strategy"
  | "malformed_csv"
  | "empty_data"
  | "invalid_range"
  | "timeframe_mismatch"
  /** A portfolio's universe names symbols its data does not hold. */
  | "universe_not_covered";

/** Bad input to the engine, with the field or CSV line a person must fix. */
export class EngineInputError extends Error {
  constructor(
    readonly code: EngineErrorCode,
    message: string,
    readonly field?: string,
    readonly line?: number,
  ) {
    super(message);
    this.name = "EngineInputError";
  }
}
