import type { DevVenue } from "@svc/dev-venue";
import { afterEach, describe, expect, it } from "vitest";
import { eventually } from "../../../../../test/support/until.js";
import { OrderPipeline } from "../order-pipeline.js";
import { FixVenue } from "./fix/fix-venue.js";
import { PipelineVenue } from "./pipeline-venue.js";
import { PASSWORD, Records, USER, devVenue } from "./venue-test-support.js";

let venue: DevVenue;
let fix: FixVenue;

afterEach(async () => {
  await fix?.close();
  await venue?.close();
});

describe("the order pipeline sending to a live venue through PipelineVenue", () => {
  it("moves the position to the strategy's target with orders the dev venue fills over FIX", async () => {
    venue = await devVenue();
    const records = new Records();
    fix = new FixVenue({
      port: venue.port,
      username: USER,
      password: PASSWORD,
      heartbeatSeconds: 1,
      report: records.report,
      startCash: 100_000,
    });
    await fix.connect();
    const errors: string[] = [];
    const live = new PipelineVenue("BTC-USD", fix, {
      idPrefix: "run1-",
      onError: (e) => errors.push(e.message),
    });
    const [[ask]] = [venue.exchange.depth("BTC-USD", 1).asks[0]!];
    // A full position is one unit at the ask: the pipeline's own sizing decides the quantity.
    const pipeline = new OrderPipeline(live, { positionSize: ask! / 100_000 }, [], (e) =>
      records.events.push(e),
    );

    pipeline.decide(1, ask!);
    expect(live.openOrders).toMatchObject([{ id: "run1-o1", side: "buy", kind: "market" }]);
    pipeline.decide(0, ask!); // the order still works at the venue: this decision waits
    await live.settled();
    await eventually(
      "bought",
      () => live.units,
      (u) => Math.abs(u - 1) < 1e-9,
    );
    expect(live.openOrders).toEqual([]);
    expect(records.of("order_filled")).toMatchObject([
      { order_id: "run1-o1", side: "buy", price: ask },
    ]);

    const [[bid]] = [venue.exchange.depth("BTC-USD", 1).bids[0]!];
    pipeline.decide(0, bid!);
    await live.settled();
    await eventually(
      "flat",
      () => live.units,
      (u) => Math.abs(u) < 1e-9,
    );
    expect(records.events.map((e) => e.type)).toEqual([
      "order_placed",
      "order_filled",
      "position_changed",
      "order_placed",
      "order_filled",
      "position_changed",
    ]);
    expect(live.cash).toBeCloseTo(
      100_000 - ask! * records.filledUnits("run1-o1") + bid! * records.filledUnits("run1-o2"),
      6,
    );
    expect(errors).toEqual([]);
  });
});
