// bench/venue: the kill switch at the venue (issue 33, 7): engaged at one instant, every open
// order of N live bots cancelled and confirmed by the venue. Each bot is a fix adapter with its
// own FIX session, venue account and symbol (a live bot needs an account of its own; with one
// shared Username every session hears every order's reports, N times the work); each rests K
// orders; at t0 every bot runs the runner's halt (`haltAtVenue`, mode
// cancel: OrderMassCancelRequest, each order's Canceled report, then mass status again until the
// venue lists none). A bot's figure is t0 to its halt confirmed; a round's is t0 to the last bot
// confirmed. All in one process with the dev venue, on loopback.
// Usage: npx tsx bench/src/venue/kill-switch-cancel.ts [--bots 100] [--orders 2] [--rounds 10] [--out FILE]
import { writeFileSync } from "node:fs";
import { loadavg } from "node:os";
import { haltAtVenue } from "@svc/bots/live";
import { FixVenue } from "@svc/bots/venues";
import { setFixLogLevel, startDevVenue } from "@svc/dev-venue";
import { machine } from "../machine.js";

const arg = (name: string, fallback: number) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : fallback;
};
const bots = arg("bots", 100);
const perBot = arg("orders", 2);
const rounds = arg("rounds", 10);
const outIndex = process.argv.indexOf("--out");
const out =
  outIndex > 0
    ? process.argv[outIndex + 1]!
    : new URL("../../results/venue-kill-switch-cancel.json", import.meta.url);

setFixLogLevel("error");
const loadAtStart = loadavg()[0];
const credentials = { username: "bench", password: "bench-password" };
const symbols = Array.from({ length: bots }, (_, i) => `S${i}`);
const accounts = symbols.map((_, i) => ({ username: `bot-${i}`, password: `bench-password-${i}` }));
const venue = await startDevVenue({ ...credentials, accounts, symbols });
const adapters: FixVenue[] = [];
for (let i = 0; i < bots; i++) {
  const fix = new FixVenue({
    port: venue.port,
    ...accounts[i]!,
    senderCompId: `BOT-${i}`,
    heartbeatSeconds: 30,
    deadlineMs: 30_000,
    report: {},
  });
  await fix.connect();
  adapters.push(fix);
}

const quantile = (xs: number[], q: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil(q * s.length) - 1)]!;
};
const ms = (ns: bigint) => Number(ns) / 1e6;
const perBotMs: number[] = [];
const allMs: number[] = [];
let unconfirmed = 0;
let seq = 0;
for (let round = 0; round < rounds; round++) {
  await Promise.all(
    adapters.map(async (fix, i) => {
      for (let k = 0; k < perBot; k++)
        await fix.submit({
          clientId: `r${round}b${i}o${k}-${seq++}`,
          symbol: symbols[i]!,
          side: k % 2 ? "sell" : "buy",
          units: 1,
          kind: "limit",
          limitPrice: k % 2 ? 200 + k : 100 - k,
        });
    }),
  );
  const open = accounts.reduce((n, a) => n + venue.exchange.openOrders(a.username).length, 0);
  if (open !== bots * perBot) throw new Error(`${open} orders open, not ${bots * perBot}`);
  const t0 = process.hrtime.bigint();
  const halts = await Promise.all(
    adapters.map(async (fix, i) => {
      const h = await haltAtVenue(fix, "cancel", symbols[i]!, { idPrefix: `b${i}.` });
      perBotMs.push(ms(process.hrtime.bigint() - t0));
      return h;
    }),
  );
  allMs.push(ms(process.hrtime.bigint() - t0));
  unconfirmed += halts.filter((h) => !h.confirmed || h.cancelled !== perBot).length;
  if (accounts.some((a) => venue.exchange.openOrders(a.username).length !== 0))
    throw new Error("orders still open at the venue after every halt was confirmed");
}
await Promise.all(adapters.map((a) => a.close()));
await venue.close();

const figures = (xs: number[]) => ({
  n: xs.length,
  p50_ms: +quantile(xs, 0.5).toFixed(3),
  p99_ms: +quantile(xs, 0.99).toFixed(3),
  max_ms: +Math.max(...xs).toFixed(3),
});
const result = {
  figure: `kill switch engaged -> every open order of ${bots} live bots cancelled and confirmed by the venue (FIX 4.4, dev venue on loopback, one process)`,
  path: "haltAtVenue(cancel) per bot: OrderMassCancelRequest -> each order's ExecutionReport Canceled -> OrderMassStatusRequest until none open",
  bots,
  open_orders_per_bot: perBot,
  rounds,
  all_bots_confirmed: figures(allMs),
  per_bot_confirmed: figures(perBotMs),
  target_p99_ms: 1000,
  unconfirmed_halts: unconfirmed,
  load_average_1m: { start: +loadAtStart!.toFixed(2), end: +loadavg()[0]!.toFixed(2) },
  machine: machine(),
};
writeFileSync(out, JSON.stringify(result, null, 2) + "\n");
process.stdout.write(JSON.stringify(result, null, 2) + "\n");
