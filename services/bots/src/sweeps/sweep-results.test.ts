import { describe, expect, it } from "vitest";
import { bestRun, sortRuns, walkForwardSummary, type RunFigures } from "./sweep-results.js";

const run = (index: number, status: string, sharpe?: number, dd?: number): RunFigures => ({
  index,
  fold: 0,
  status,
  summary: status === "success" ? { sharpe, max_drawdown: dd, total_return: sharpe } : null,
});

describe("a sweep's results", () => {
  const runs = [
    run(0, "success", 0.5, 0.2),
    run(1, "failed"),
    run(2, "success", 1.5, 0.4),
    run(3, "pending"),
    run(4, "success", 1.5, 0.1),
  ];

  it("sorts by a metric, ties and runs without the figure in sweep order, those last", () => {
    expect(sortRuns(runs, "sharpe", false).map((r) => r.index)).toEqual([2, 4, 0, 1, 3]);
    expect(sortRuns(runs, "sharpe", true).map((r) => r.index)).toEqual([0, 2, 4, 1, 3]);
    expect(sortRuns(runs, "max_drawdown", true).map((r) => r.index)).toEqual([4, 0, 2, 1, 3]);
  });

  it("picks the best by the metric (the smallest drawdown), none when nothing succeeded", () => {
    expect(bestRun(runs, "sharpe")?.index).toBe(2);
    expect(bestRun(runs, "max_drawdown")?.index).toBe(4);
    expect(bestRun([run(0, "failed"), run(1, "halted")], "sharpe")).toBeUndefined();
  });

  it("chains the out-of-sample runs: returns compounded, efficiency out over in", () => {
    const s = walkForwardSummary(
      [
        { inSample: 2, outOfSample: run(-1, "success", 0.1) },
        { inSample: 2, outOfSample: run(-1, "success", -0.05) },
        { inSample: 9, outOfSample: run(-1, "failed") },
      ],
      "sharpe",
    );
    expect(s.foldsDone).toBe(2);
    expect(s.outOfSampleReturn).toBeCloseTo(1.1 * 0.95 - 1, 12);
    expect(s.meanOutOfSampleMetric).toBeCloseTo(0.025, 12);
    expect(s.efficiency).toBeCloseTo(0.0125, 12);
  });
});
