import { describe, expect, it } from "vitest";
import {
  boundsFor,
  classifyPace,
  drillSettled,
  judgeBot,
  judgeDrill,
  longestWaitMs,
  timeframeSeconds,
} from "./drill-verdict.js";

const SPEC = { draining: 10_000, stoppedHighFrequency: 30_000, stopped: 300_000 };

describe("which bot is high-frequency", () => {
  it("the explicit engine.high_frequency flag makes a bot high-frequency whatever its bars", () => {
    expect(classifyPace({ highFrequencyFlag: true, timeframe: "1d" })).toEqual({
      highFrequency: true,
      basis: "engine.high_frequency is set",
    });
  });

  it("bars under one minute make a bot high-frequency without the flag; a minute or more does not", () => {
    expect(classifyPace({ highFrequencyFlag: false, timeframe: "59s" }).highFrequency).toBe(true);
    expect(classifyPace({ highFrequencyFlag: false, timeframe: "15s" }).basis).toBe(
      "bars of 15s, under one minute",
    );
    expect(classifyPace({ highFrequencyFlag: false, timeframe: "60s" }).highFrequency).toBe(false);
    expect(classifyPace({ highFrequencyFlag: false, timeframe: "1m" })).toEqual({
      highFrequency: false,
      basis: "bars of 1m, engine.high_frequency not set",
    });
    expect(classifyPace({ highFrequencyFlag: false, timeframe: "" })).toEqual({
      highFrequency: false,
      basis: "no timeframe, engine.high_frequency not set",
    });
  });

  it("reads timeframes in seconds, minutes, hours and days, and nothing else", () => {
    expect([timeframeSeconds("30s"), timeframeSeconds("4h"), timeframeSeconds("1d")]).toEqual([
      30, 14_400, 86_400,
    ]);
    expect(timeframeSeconds("1w")).toBeNull();
  });

  it("holds a high-frequency bot to the 30 s Stopped bound and any other to 300 s", () => {
    expect(boundsFor(true, SPEC)).toEqual({ drainingMs: 10_000, stoppedMs: 30_000 });
    expect(boundsFor(false, SPEC)).toEqual({ drainingMs: 10_000, stoppedMs: 300_000 });
  });
});

describe("a bot's verdict", () => {
  const hf = boundsFor(true, SPEC);

  it("passes when it drained and stopped within its bounds, the bounds included", () => {
    expect(judgeBot({ drainingMs: 40, stoppedMs: 1_200 }, hf)).toEqual({
      verdict: "pass",
      misses: [],
    });
    expect(judgeBot({ drainingMs: 10_000, stoppedMs: 30_000 }, hf).verdict).toBe("pass");
  });

  it("fails naming the bound and the time observed past it", () => {
    expect(judgeBot({ drainingMs: 10_001, stoppedMs: 31_500 }, hf)).toEqual({
      verdict: "fail",
      misses: [
        {
          bound: "draining",
          boundMs: 10_000,
          observedMs: 10_001,
          message: "Draining after 10.001 s, past its bound of 10 s",
        },
        {
          bound: "stopped",
          boundMs: 30_000,
          observedMs: 31_500,
          message: "Stopped after 31.5 s, past its bound of 30 s",
        },
      ],
    });
  });

  it("fails naming a phase that was never observed", () => {
    const never = judgeBot({ drainingMs: null, stoppedMs: null }, boundsFor(false, SPEC));
    expect(never.misses.map((m) => m.message)).toEqual([
      "Draining not observed within its bound of 10 s",
      "Stopped not observed within its bound of 300 s",
    ]);
    expect(never.misses.map((m) => m.observedMs)).toEqual([null, null]);
    const stuck = judgeBot({ drainingMs: 30, stoppedMs: null }, hf);
    expect(stuck.misses).toEqual([
      {
        bound: "stopped",
        boundMs: 30_000,
        observedMs: null,
        message: "Stopped not observed within its bound of 30 s",
      },
    ]);
  });

  it("counts a Stopped without a Draining as drained when it stopped", () => {
    expect(judgeBot({ drainingMs: null, stoppedMs: 800 }, hf).verdict).toBe("pass");
    expect(judgeBot({ drainingMs: null, stoppedMs: 12_000 }, hf).misses[0]!.message).toBe(
      "Draining after 12 s, past its bound of 10 s",
    );
  });
});

describe("a drill's verdict and its wait", () => {
  it("passes only when every bot passes, and says so when no bot ran", () => {
    expect(judgeDrill(["pass", "pass"])).toBe("pass");
    expect(judgeDrill(["pass", "fail"])).toBe("fail");
    expect(judgeDrill([])).toBe("no_bots");
  });

  it("waits until every bot stopped or is past its Stopped bound", () => {
    const bots = [
      { stoppedMs: 900, stoppedBoundMs: 30_000 },
      { stoppedMs: null, stoppedBoundMs: 300_000 },
    ];
    expect(drillSettled(bots, 31_000)).toBe(false);
    expect(drillSettled(bots, 300_001)).toBe(true);
    expect(drillSettled([{ stoppedMs: 900, stoppedBoundMs: 300_000 }], 1_000)).toBe(true);
    expect(longestWaitMs(bots)).toBe(300_000);
    expect(longestWaitMs([])).toBe(0);
  });
});
