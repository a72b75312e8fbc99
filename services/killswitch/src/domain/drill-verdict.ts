/**
 * How a kill-switch drill is judged, without I/O. The spec's bounds: a running bot announces
 * Draining within 10 s of the engagement, and Stopped within 30 s when it is high-frequency and
 * within 300 s otherwise. Both are measured from the drill's engagement (the stricter reading of
 * the spec's "Draining -> Stopped within ..."): the operator's question is how long after the
 * switch the bot is out of the market.
 */

/** The bounds in force, in milliseconds (settings SVC_KILLSWITCH_DRILL_*). */
export interface DrillBoundsMs {
  draining: number;
  stoppedHighFrequency: number;
  stopped: number;
}

/** What the bot's spec (of the version that runs) says about its pace. */
export interface PaceFacts {
  /** engine.high_frequency */
  highFrequencyFlag: boolean;
  /** universe.timeframe, such as 30s, 1m or 1d; empty when unset. */
  timeframe: string;
}

const UNIT_S = { s: 1, m: 60, h: 3_600, d: 86_400 } as const;

/** Seconds in a timeframe such as 30s or 4h; null when it is not one. */
export function timeframeSeconds(timeframe: string): number | null {
  const m = /^([0-9]+)(s|m|h|d)$/.exec(timeframe);
  return m ? Number(m[1]) * UNIT_S[m[2] as keyof typeof UNIT_S] : null;
}

/**
 * A bot is high-frequency when its spec says so (engine.high_frequency) or when it trades bars
 * under one minute: a bot deciding more than once a minute is held to the 30 s bound whether or
 * not its author set the flag. The basis says which, for the auditor.
 *
 * @example classifyPace({ highFrequencyFlag: false, timeframe: "15s" }) // { highFrequency: true, basis: "bars of 15s, under one minute" }
 */
export function classifyPace(f: PaceFacts): { highFrequency: boolean; basis: string } {
  if (f.highFrequencyFlag) return { highFrequency: true, basis: "engine.high_frequency is set" };
  const s = timeframeSeconds(f.timeframe);
  if (s !== null && s < 60)
    return { highFrequency: true, basis: `bars of ${f.timeframe}, under one minute` };
  return {
    highFrequency: false,
    basis: `${f.timeframe ? `bars of ${f.timeframe}` : "no timeframe"}, engine.high_frequency not set`,
  };
}

/** The two bounds one bot is held to. */
export function boundsFor(
  highFrequency: boolean,
  b: DrillBoundsMs,
): { drainingMs: number; stoppedMs: number } {
  return {
    drainingMs: b.draining,
    stoppedMs: highFrequency ? b.stoppedHighFrequency : b.stopped,
  };
}

/** One bound missed: which, its value, what was observed (null: nothing), and a sentence. */
export interface BoundMiss {
  bound: "draining" | "stopped";
  boundMs: number;
  observedMs: number | null;
  message: string;
}

const seconds = (ms: number) => `${Number((ms / 1_000).toFixed(3))} s`;

function miss(
  bound: "draining" | "stopped",
  boundMs: number,
  observedMs: number | null,
): BoundMiss | null {
  const phase = bound === "draining" ? "Draining" : "Stopped";
  if (observedMs === null)
    return {
      bound,
      boundMs,
      observedMs,
      message: `${phase} not observed within its bound of ${seconds(boundMs)}`,
    };
  if (observedMs > boundMs)
    return {
      bound,
      boundMs,
      observedMs,
      message: `${phase} after ${seconds(observedMs)}, past its bound of ${seconds(boundMs)}`,
    };
  return null;
}

/**
 * Judges one bot from the times (ms after the engagement) its runner announced Draining and
 * Stopped. A Stopped without a Draining before it counts as drained when it stopped: a stopped
 * bot is out of the market, which is what the Draining bound asks first.
 *
 * @example judgeBot({ drainingMs: 40, stoppedMs: null }, { drainingMs: 10_000, stoppedMs: 30_000 }).misses[0].message // "Stopped not observed within its bound of 30 s"
 */
export function judgeBot(
  observed: { drainingMs: number | null; stoppedMs: number | null },
  bounds: { drainingMs: number; stoppedMs: number },
): { verdict: "pass" | "fail"; misses: BoundMiss[] } {
  const drained = observed.drainingMs ?? observed.stoppedMs;
  const misses = [
    miss("draining", bounds.drainingMs, drained),
    miss("stopped", bounds.stoppedMs, observed.stoppedMs),
  ].filter((m): m is BoundMiss => m !== null);
  return { verdict: misses.length === 0 ? "pass" : "fail", misses };
}

/** Pass only when every bot passes; a drill with no bot shows nothing, so it does not pass. */
export function judgeDrill(verdicts: Array<"pass" | "fail">): "pass" | "fail" | "no_bots" {
  if (verdicts.length === 0) return "no_bots";
  return verdicts.every((v) => v === "pass") ? "pass" : "fail";
}

/**
 * Whether waiting longer can change a verdict: every bot has stopped or is past its Stopped
 * bound. A drill of bots that all stopped ends at once instead of waiting out 300 s.
 */
export function drillSettled(
  bots: Array<{ stoppedMs: number | null; stoppedBoundMs: number }>,
  elapsedMs: number,
): boolean {
  return bots.every((b) => b.stoppedMs !== null || elapsedMs > b.stoppedBoundMs);
}

/** The longest a drill of these bots may wait before it releases: the largest Stopped bound. */
export function longestWaitMs(bots: Array<{ stoppedBoundMs: number }>): number {
  return Math.max(0, ...bots.map((b) => b.stoppedBoundMs));
}
