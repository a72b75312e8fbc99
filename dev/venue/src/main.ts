#!/usr/bin/env -S npx tsx
import { randomBytes } from "node:crypto";
import { fileURLToPath } from "node:url";
import { startDevVenue } from "./dev-venue.js";
import { setFixLogLevel, type FixLogLevel } from "./fix-runtime.js";
import { closesFromCsv, seededWalk } from "./price-path.js";

/**
 * `npm run venue`: the development venue on 127.0.0.1 (see docs/venues.md). The password is made
 * at each start unless given in the environment, and printed here: this venue is for a laptop.
 */
const env = process.env;
const fail = (message: string): never => {
  console.error(message);
  process.exit(2);
};
const integer = (name: string, fallback: number, min: number, max: number): number => {
  const raw = env[name];
  if (raw === undefined || raw === "") return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < min || n > max)
    fail(`${name}=${raw}: expected an integer from ${min} to ${max}`);
  return n;
};

const bundledBars = fileURLToPath(
  new URL("../../../services/bots/data/sample-btc-usd-1d.csv", import.meta.url),
);
const barsSource = env.SVC_VENUE_BARS_CSV ?? bundledBars;
const seed = integer("SVC_VENUE_SEED", 1, 0, 2 ** 32 - 1);
let closes: number[] = [];
try {
  closes = barsSource === "random" ? seededWalk(seed) : closesFromCsv(barsSource);
} catch (e) {
  fail(`SVC_VENUE_BARS_CSV: ${(e as Error).message}`);
}

const level = (env.SVC_VENUE_FIX_LOG ?? "warning") as FixLogLevel;
if (!["debug", "info", "warning", "error", "none"].includes(level))
  fail(`SVC_VENUE_FIX_LOG=${level}: expected debug, info, warning, error or none`);
setFixLogLevel(level);

const username = env.SVC_VENUE_USERNAME || "svc-dev";
const password = env.SVC_VENUE_PASSWORD || randomBytes(18).toString("base64url");
const symbol = env.SVC_VENUE_SYMBOL || "BTC-USD";
const apiKey = env.SVC_VENUE_API_KEY || randomBytes(18).toString("base64url");
const apiSecret = env.SVC_VENUE_API_SECRET || randomBytes(24).toString("base64url");
const venue = await startDevVenue({
  host: env.SVC_VENUE_HOST || "127.0.0.1",
  port: integer("SVC_VENUE_PORT", 9878, 0, 65535),
  controlPort: integer("SVC_VENUE_CONTROL_PORT", 9879, 0, 65535),
  username,
  password,
  compId: env.SVC_VENUE_COMP_ID || "SVC-VENUE",
  heartbeatSeconds: integer("SVC_VENUE_HEARTBEAT_SECONDS", 30, 1, 3600),
  liquidity: [
    {
      symbol,
      closes,
      levels: integer("SVC_VENUE_LEVELS", 5, 1, 100),
      size: Number(env.SVC_VENUE_LEVEL_SIZE || 1),
    },
  ],
  barIntervalMs: integer("SVC_VENUE_BAR_INTERVAL_MS", 1000, 0, 86_400_000),
  binance: { apiKey, apiSecret, port: integer("SVC_VENUE_BINANCE_PORT", 9880, 0, 65535) },
}).catch((e: Error) => fail(e.message));

const best = venue.exchange.depth(symbol, 1);
console.log(
  [
    `svc development venue: FIX 4.4 at ${venue.host}:${venue.port} (TargetCompID ${venue.compId}, any SenderCompID)`,
    `  Username ${username}`,
    `  Password ${password}`,
    `fault switches at ${venue.controlUrl} (GET/PUT /faults, POST /sessions/drop)`,
    `Binance spot REST facade at ${venue.binanceUrl}/api/v3 (ccxt: urls.api.public and .private)`,
    `  API key ${apiKey}`,
    `  secret  ${apiSecret}`,
    `${symbol}: quotes follow ${barsSource === "random" ? `a seeded random walk (seed ${seed})` : barsSource} (${closes.length} bars), ` +
      `best bid ${best.bids[0]?.[0]} / ask ${best.asks[0]?.[0]}`,
  ].join("\n"),
);

const stop = () => void venue.close().then(() => process.exit(0));
process.on("SIGINT", stop);
process.on("SIGTERM", stop);
