import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunningPlatform } from "@svc/all-in-one";
import { as } from "../support/paper.js";
import { eventsOf, rejectionBy, riskSession, type StoredEvent } from "../support/risk-session.js";
import { call, startTestPlatform } from "../support/test-platform.js";
import { eventually } from "../support/until.js";

/** The closes of the bars recorded before event `e` (the last one is the bar it was decided at). */
function closesBefore(events: StoredEvent[], e: StoredEvent): number[] {
  return events
    .filter((x) => x.type === "bar_received" && Number(x.seq) < Number(e.seq))
    .map((x) => Number(x.data.close));
}

describe("pre-trade risk controls: a crafted breach of each, against a running paper session", () => {
  let p: RunningPlatform;
  beforeAll(async () => {
    p = await startTestPlatform("pglite");
  });
  afterAll(async () => {
    await p?.close();
  });

  it("maximum order volume: refused, naming the limit and the order's units", async () => {
    await riskSession(p, "risk-units", { max_order_units: 0.5 });
    const r = await rejectionBy(p, "risk-units", "max_order_units");
    expect(r.data).toMatchObject({ limit: 0.5, value: r.data.units });
    expect(Number(r.data.value)).toBeGreaterThan(0.5);
  });

  it("maximum order value: refused, the value being units times the decision's close", async () => {
    await riskSession(p, "risk-notional", { max_order_notional: 1000 });
    const r = await rejectionBy(p, "risk-notional", "max_order_notional");
    const close = closesBefore(await eventsOf(p, "risk-notional"), r).at(-1)!;
    expect(r.data.limit).toBe(1000);
    expect(Number(r.data.value)).toBeCloseTo(Number(r.data.units) * close, 6);
  });

  it("price collar: refused, the value being the move from the previous close in percent", async () => {
    await riskSession(p, "risk-collar", { price_collar_pct: 0.0001 });
    const r = await rejectionBy(p, "risk-collar", "price_collar");
    const [reference, close] = closesBefore(await eventsOf(p, "risk-collar"), r).slice(-2);
    expect(r.data.limit).toBe(0.0001);
    expect(Number(r.data.value)).toBeCloseTo((Math.abs(close! - reference!) / reference!) * 100, 8);
  });

  it("capital threshold of the bot: the position value after the order", async () => {
    await riskSession(p, "risk-capital", { capital_limit: 1000 });
    const r = await rejectionBy(p, "risk-capital", "capital_threshold");
    const close = closesBefore(await eventsOf(p, "risk-capital"), r).at(-1)!;
    expect(r.data.limit).toBe(1000);
    expect(Number(r.data.value)).toBeCloseTo(Number(r.data.units) * close, 6);
  });

  it("credit threshold of the bot: past the loss allowed, opening orders are refused", async () => {
    // 5 % fees on every fill: the first fill alone loses more than the threshold.
    await riskSession(p, "risk-credit", { credit_limit: 0.01 }, { engine: { fee_bps: 500 } });
    const r = await rejectionBy(p, "risk-credit", "credit_threshold");
    expect(r.data.limit).toBe(0.01);
    expect(Number(r.data.value)).toBeGreaterThan(0.01);
    const events = await eventsOf(p, "risk-credit");
    expect(events.some((e) => e.type === "order_filled")).toBe(true);
    // A replay that re-runs the strategy applies the same limits, so it refuses the same orders.
    const replay = await call(p.url, "POST", "/bots/risk-credit/replay", { rerun_strategy: true });
    expect(replay.body.deterministic).toBe(true);
  });

  it("restricted instrument: refused, naming the list and the symbol", async () => {
    await riskSession(p, "risk-restricted", { restricted_symbols: ["XYZ", "BTC-USD"] });
    const r = await rejectionBy(p, "risk-restricted", "restricted_instrument");
    expect(r.data).toMatchObject({ limit: "XYZ,BTC-USD", value: "BTC-USD" });
    // Every opening the strategy tries (unrestricted, it trades every few bars) is refused.
    const events = await eventually(
      "the restricted bot sees 150 bars",
      () => eventsOf(p, "risk-restricted"),
      (es) => es.filter((e) => e.type === "bar_received").length >= 150,
      60_000,
    );
    expect(events.filter((e) => e.type === "order_placed")).toEqual([]);
    const refused = events.filter(
      (e) => e.type === "order_rejected" && e.data.check === "restricted_instrument",
    );
    expect(refused.length).toBeGreaterThan(2);
    await call(p.url, "POST", "/bots/risk-restricted/halt", { reason: "test over" });
  }, 90_000);

  it("duplicate order: the same side, size and price within the window", async () => {
    // Two buys (openings of similar size) within a year match at a 50 % tolerance.
    await riskSession(p, "risk-duplicate", {
      duplicate_window_s: 31_536_000,
      duplicate_tolerance_pct: 50,
    });
    const r = await rejectionBy(p, "risk-duplicate", "duplicate_order");
    expect(r.data.limit).toBe(31_536_000);
    expect(Number(r.data.value)).toBeGreaterThanOrEqual(0);
    expect(Number(r.data.value)).toBeLessThan(31_536_000);
  });

  it("capital threshold of the fleet: the bot's position value plus the rest of the fleet's", async () => {
    const limits = await call(p.url, "PUT", "/fleets/risk-fleet-cap/risk-limits", {
      capital_limit: 150_000,
    });
    expect(limits.status).toBe(200);
    expect(limits.body).toMatchObject({
      fleet: "risk-fleet-cap",
      limits: { capital_limit: 150_000, credit_limit: 0 },
    });
    // The first bot holds a position worth about 100,000 all along (long or short, it flips).
    await riskSession(
      p,
      "risk-fleet-one",
      {},
      { fleet: "risk-fleet-cap", speed: 40, allowShort: true },
    );
    await eventually(
      "the first bot of the fleet holds a position",
      () => eventsOf(p, "risk-fleet-one"),
      (es) => es.some((e) => e.type === "position_changed"),
      30_000,
    );
    await riskSession(p, "risk-fleet-two", {}, { fleet: "risk-fleet-cap" });
    const r = await rejectionBy(p, "risk-fleet-two", "fleet_capital_threshold");
    expect(r.data.limit).toBe(150_000);
    const close = closesBefore(await eventsOf(p, "risk-fleet-two"), r).at(-1)!;
    // More than its own order's value: the other bot's position counts too.
    expect(Number(r.data.value)).toBeGreaterThan(150_000);
    expect(Number(r.data.value)).toBeGreaterThan(Number(r.data.units) * close + 50_000);
    await call(p.url, "POST", "/bots/risk-fleet-one/halt", { reason: "test over" });
  }, 90_000);

  it("credit threshold of the fleet: the fleet's loss", async () => {
    await call(p.url, "PUT", "/fleets/risk-fleet-credit/risk-limits", { credit_limit: 0.01 });
    await riskSession(
      p,
      "risk-fleet-credit-bot",
      {},
      { fleet: "risk-fleet-credit", engine: { fee_bps: 500 } },
    );
    const r = await rejectionBy(p, "risk-fleet-credit-bot", "fleet_credit_threshold");
    expect(r.data.limit).toBe(0.01);
    expect(Number(r.data.value)).toBeGreaterThan(0.01);
  });

  it("message throttle: a breach disables the bot until a named person re-enables it", async () => {
    // One order per day of bar time: a flip (a close and an opening at one close) is two.
    await riskSession(
      p,
      "risk-throttle",
      { max_orders_per_window: 1, throttle_window_s: 86_400 },
      { speed: 30, allowShort: true },
    );
    const r = await rejectionBy(p, "risk-throttle", "message_throttle");
    expect(r.data).toMatchObject({ limit: 1, value: 2 });
    const events = await eventsOf(p, "risk-throttle");
    expect(events.find((e) => e.type === "risk_disabled")?.data).toMatchObject({
      control: "message_throttle",
      limit: 1,
      value: 2,
    });
    const disabled = await eventually(
      "the bot detail shows the bot disabled",
      () => call(p.url, "GET", "/bots/risk-throttle"),
      (res) => res.body.risk_state?.disabled === true,
    );
    expect(disabled.body.risk_state).toMatchObject({
      control: "message_throttle",
      limit: 1,
      value: 2,
      re_enabled_by: "",
    });
    // Disabled: the next decision's orders are refused and recorded, none is placed.
    const refused = await rejectionBy(p, "risk-throttle", "risk_disabled");
    const after = (await eventsOf(p, "risk-throttle")).filter(
      (e) => Number(e.seq) > Number(r.seq) && Number(e.seq) <= Number(refused.seq),
    );
    expect(after.filter((e) => e.type === "order_placed")).toEqual([]);

    const reEnabled = await call(
      p.url,
      "POST",
      "/bots/risk-throttle/risk/re-enable",
      { reason: "burst understood: a flip is two orders" },
      as("carol"),
    );
    expect(reEnabled.status, JSON.stringify(reEnabled.body)).toBe(200);
    expect(reEnabled.body).toMatchObject({
      disabled: false,
      re_enabled_by: "local|carol",
      re_enable_reason: "burst understood: a flip is two orders",
    });
    expect(Date.parse(reEnabled.body.re_enabled_at)).toBeGreaterThan(Date.now() - 60_000);
    const again = await call(p.url, "POST", "/bots/risk-throttle/risk/re-enable", {
      reason: "twice",
    });
    expect([again.status, again.body.error.code]).toEqual([409, "risk_not_disabled"]);
    expect(again.body.error.details.re_enabled_by).toBe("local|carol");

    // The session learns of it, records who, and sends orders again.
    const resumed = await eventually(
      "the session records the re-enable and places an order after it",
      () => eventsOf(p, "risk-throttle"),
      (es) => {
        const at = es.findIndex((e) => e.type === "risk_re_enabled");
        return at >= 0 && es.slice(at).some((e) => e.type === "order_placed");
      },
      30_000,
    );
    expect(resumed.find((e) => e.type === "risk_re_enabled")?.data).toEqual({
      by: "local|carol",
      reason: "burst understood: a flip is two orders",
    });
    const detail = await call(p.url, "GET", "/bots/risk-throttle");
    expect(detail.body.risk_state).toMatchObject({ re_enabled_by: "local|carol" });
    await call(p.url, "POST", "/bots/risk-throttle/halt", { reason: "test over" });
  }, 120_000);

  it("a backtest honours the same controls", async () => {
    const started = await call(p.url, "POST", "/bots/risk-units/backtest", {});
    expect(started.status).toBe(202);
    const done = await eventually(
      "the backtest of risk-units succeeds",
      () => call(p.url, "GET", "/bots/risk-units/deployments"),
      (r) =>
        r.body.items.some(
          (d: { target: string; status: string }) =>
            d.target === "backtest" && d.status === "success",
        ),
      30_000,
    );
    const summary = done.body.items.find(
      (d: { target: string }) => d.target === "backtest",
    ).result_summary;
    expect(summary.trades).toBe(0);
    expect(summary.risk_rejections.max_order_units).toBeGreaterThan(0);
  });
});

describe("risk limits are checked when saved: 400 naming the field", () => {
  let p: RunningPlatform;
  beforeAll(async () => {
    p = await startTestPlatform("pglite");
  });
  afterAll(async () => {
    await p?.close();
  });

  const save = (risk: unknown) =>
    call(p.url, "POST", "/bots", { name: "Limits", kind: "trading", risk });

  it.each([
    [{ max_order_units: -1 }, "risk.max_order_units", /below the minimum 0/],
    [{ max_order_notional: "NaN" }, "risk.max_order_notional", /must be a number/],
    [{ capital_limit: "Infinity" }, "risk.capital_limit", /must be a number/],
    [{ credit_limit: 1e300 }, "risk.credit_limit", /above the maximum/],
    [{ price_collar_pct: 101 }, "risk.price_collar_pct", /above the maximum 100/],
    [{ max_orders_per_window: 5 }, "risk.throttle_window_s", /required when/],
    [
      { max_orders_per_window: 5, throttle_window_s: null },
      "risk.throttle_window_s",
      /required when/,
    ],
    [{ throttle_window_s: 60 }, "risk.max_orders_per_window", /required when/],
    [{ duplicate_tolerance_pct: 5 }, "risk.duplicate_window_s", /required when/],
    [{ restricted_symbols: ["BTC\u0000USD"] }, "risk.restricted_symbols[0]", /NUL/],
    [{ restricted_symbols: ["a b"] }, "risk.restricted_symbols[0]", /does not match/],
    [{ restricted_symbols: ["XYZ", "XYZ"] }, "risk.restricted_symbols[1]", /twice/],
    [{ max_order_units: "lots" }, "risk.max_order_units", /must be a number/],
  ])("%j", async (risk, field, message) => {
    const res = await save(risk);
    expect(res.status, JSON.stringify(res.body)).toBe(400);
    expect(res.body.error.details.field).toBe(field);
    expect(res.body.error.message).toMatch(message);
  });

  it("a fleet limit too, and nothing was saved", async () => {
    const res = await call(p.url, "PUT", "/fleets/majors/risk-limits", { capital_limit: -5 });
    expect(res.status).toBe(400);
    expect(res.body.error.details.field).toBe("capital_limit");
    const bad = await call(p.url, "PUT", "/fleets/Bad%20Fleet/risk-limits", { capital_limit: 5 });
    expect(bad.status).toBe(400);
    expect((await call(p.url, "GET", "/fleets/majors/risk-limits")).body).toMatchObject({
      fleet: "majors",
      limits: { capital_limit: 0, credit_limit: 0 },
    });
    expect((await call(p.url, "GET", "/bots")).body.items).toEqual([]);
  });

  it("good limits are kept in the spec and the version", async () => {
    const risk = { max_order_units: 2, max_orders_per_window: 10, throttle_window_s: 60 };
    const res = await save(risk);
    expect(res.status).toBe(201);
    expect(res.body.spec.risk).toMatchObject(risk);
    expect(res.body.risk_state).toBeNull();
  });
});
