// bench/venue: bar close to order acknowledged by the dev venue over FIX 4.4 on loopback (issue
// 33, 7), through the platform's path: the order pipeline (a strategy's explicit order at the
// bar's close) -> PipelineVenue -> the fix adapter (jspurefix initiator) -> the dev venue
// (jspurefix acceptor, nodejs-order-book) -> ExecutionReport New -> the adapter's ledger writes
// order_placed. The floor: a bare jspurefix initiator sending the same NewOrderSingle and timing
// the ExecutionReport's arrival. Both sessions share one venue and one process, and the two take
// turns order by order, so both see the same load. One order in flight at a time.
// Usage: npx tsx bench/src/venue/adapter-roundtrip.ts [--orders 3000] [--warmup 300] [--out FILE]
import { writeFileSync } from "node:fs";
import { loadavg } from "node:os";
import { OrderPipeline } from "@svc/bots/execution";
import { FixVenue, PipelineVenue } from "@svc/bots/venues";
import { connectFixClient, setFixLogLevel, startDevVenue, type Received } from "@svc/dev-venue";
import { machine } from "../machine.js";

const arg = (name: string, fallback: number) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : fallback;
};
const orders = arg("orders", 3000);
const warmup = arg("warmup", 300);
const outIndex = process.argv.indexOf("--out");
const out =
  outIndex > 0
    ? process.argv[outIndex + 1]!
    : new URL("../../results/venue-adapter-roundtrip.json", import.meta.url);

setFixLogLevel("error");
const loadAtStart = loadavg()[0];
const credentials = { username: "bench", password: "bench-password" };
const venue = await startDevVenue({ ...credentials, symbols: ["BENCH"] });

// The platform's path.
let ackedAt = 0n;
let onAck: () => void = () => {};
const fix = new FixVenue({
  port: venue.port,
  ...credentials,
  senderCompId: "BENCH-ADAPTER",
  report: {
    event: (e) => {
      if (e.type !== "order_placed") return;
      ackedAt = process.hrtime.bigint();
      onAck();
    },
  },
  startCash: 1e12,
});
await fix.connect();
const live = new PipelineVenue("BENCH", fix, { idPrefix: "a" });
const pipeline = new OrderPipeline(live, { positionSize: 1 }, []);

// The floor.
const bare = await connectFixClient({
  port: venue.port,
  ...credentials,
  senderCompId: "BENCH-BARE",
});
await bare.ready;
let bareAck: (r: Received) => void = () => {};
bare.onMessage((r) => {
  if (r.msgType === "8" && r.body.ExecType === "0") bareAck(r);
});

let seq = 0;
/** Each bid a tick below the last: they rest and never cross, as in fix-roundtrip.ts. */
const price = () => 1_000_000 - ++seq * 0.01;

async function throughAdapter(): Promise<number> {
  const limitPrice = price();
  const acked = new Promise<void>((r) => (onAck = r));
  const barClose = process.hrtime.bigint();
  pipeline.send({ side: "buy", units: 1, kind: "limit", limitPrice }, limitPrice);
  await acked;
  return Number(ackedAt - barClose) / 1e6;
}

async function throughBareSession(): Promise<number> {
  const limitPrice = price();
  const acked = new Promise<Received>((r) => (bareAck = r));
  const sentAt = process.hrtime.bigint();
  bare.send("D", {
    ClOrdID: `b${seq}`,
    Instrument: { Symbol: "BENCH" },
    Side: "1",
    TransactTime: new Date(),
    OrderQtyData: { OrderQty: 1 },
    OrdType: "2",
    Price: limitPrice,
  });
  const r = await acked;
  return Number(r.at - sentAt) / 1e6;
}

const quantile = (sorted: number[], q: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
const summary = (values: number[]) => {
  const s = [...values].sort((a, b) => a - b);
  const round = (x: number) => Math.round(x * 1000) / 1000;
  return {
    n: s.length,
    p50_ms: round(quantile(s, 0.5)),
    p90_ms: round(quantile(s, 0.9)),
    p99_ms: round(quantile(s, 0.99)),
    max_ms: round(s[s.length - 1]!),
    mean_ms: round(s.reduce((a, b) => a + b, 0) / s.length),
  };
};

for (let i = 0; i < warmup; i++) {
  await throughAdapter();
  await throughBareSession();
}
const adapter: number[] = [];
const floor: number[] = [];
for (let i = 0; i < orders; i++) {
  // Alternate which goes first, so neither always follows the other's garbage.
  if (i % 2 === 0) {
    adapter.push(await throughAdapter());
    floor.push(await throughBareSession());
  } else {
    floor.push(await throughBareSession());
    adapter.push(await throughAdapter());
  }
}

const a = summary(adapter);
const f = summary(floor);
const result = {
  figure:
    "bar close -> order acknowledged (ExecutionReport New booked as order_placed) over FIX 4.4, dev venue on loopback, one process",
  path: "OrderPipeline.send (no pre-trade checks) -> PipelineVenue -> FixVenue (jspurefix initiator) -> dev venue -> ExecutionReport New -> OrderLedger",
  adapter: a,
  floor_bare_jspurefix_initiator: f,
  adapter_over_floor_ms: {
    p50: Math.round((a.p50_ms - f.p50_ms) * 1000) / 1000,
    p99: Math.round((a.p99_ms - f.p99_ms) * 1000) / 1000,
  },
  resting_orders_at_end: venue.exchange.openOrders("bench").length,
  warmup,
  load_average_1m: { start: loadAtStart, end: loadavg()[0] },
  machine: machine(),
};
console.log(JSON.stringify(result, null, 2));
writeFileSync(out, `${JSON.stringify(result, null, 2)}\n`);

await fix.close();
await bare.close();
await venue.close();
