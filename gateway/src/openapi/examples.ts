/**
 * Request bodies for the main routes, taken from the README demo so a reader can paste them as
 * they are (test/e2e/openapi.test.ts checks each against its schema and sends the cheap ones).
 * Keyed by the RPC's full name; the path parameters (bot_ref, name) are in the route, not here.
 */
export const REQUEST_EXAMPLES: Readonly<Record<string, unknown>> = {
  "svc.bots.v1.BotsService.CreateBot": {
    name: "Demo",
    kind: "trading",
    fleet: "majors",
    strategy: { family: "ma_crossover", parameters: { fast: 10, slow: 30 } },
    engine: { initial_cash: 100000, fee_bps: 5, slippage_bps: 2, position_size: 1 },
  },
  "svc.bots.v1.BotsService.BacktestBot": { data_source: "csv:sample-btc-usd-1d" },
  "svc.promotion.v1.PromotionService.CreatePromotionRequest": {
    request_id: "demo-1",
    kind: "strategy",
    // The spec_hash of the Demo bot above (GET /bots/demo), the same on every install.
    artifact: {
      bot_ref: "demo",
      version: 1,
      version_hash: "1e9923088e0ccceb0ac84b0531bb4a264761c54ecfb1fea70a892aa90c372eed",
    },
    validation: { verdict: "PASS" },
    risk: { decision: "APPROVE" },
  },
  "svc.killswitch.v1.KillSwitchService.ApplyKillSwitch": {
    scope: "fleet",
    target: "majors",
    mode: "cancel",
    reason: "drill",
  },
  // approved_promotion is the token POST /promotion/requests/{request_id}/approve returns.
  "svc.bots.v1.BotsService.StartPaper": { approved_promotion: "APPROVED_PROMOTION", speed: 20 },
};
