/** The controls' names, as order_rejected and risk_disabled records spell them. */
export const CONTROL = {
  restrictedInstrument: "restricted_instrument",
  maxOrderUnits: "max_order_units",
  maxOrderNotional: "max_order_notional",
  priceCollar: "price_collar",
  capitalThreshold: "capital_threshold",
  creditThreshold: "credit_threshold",
  fleetCapitalThreshold: "fleet_capital_threshold",
  fleetCreditThreshold: "fleet_credit_threshold",
  duplicateOrder: "duplicate_order",
  messageThrottle: "message_throttle",
  /** Not a control of its own: the refusal of every order while a throttle breach stands. */
  riskDisabled: "risk_disabled",
} as const;

export type ControlName = (typeof CONTROL)[keyof typeof CONTROL];
