// bench/venue: NewOrderSingle to ExecutionReport (New) over FIX 4.4 on loopback, between the dev
// venue (jspurefix acceptor, nodejs-order-book) and a bare jspurefix initiator in one process:
// the floor a venue adapter's "order acknowledged" figure is judged against (issue 33, 7).
// Sequential: one order in flight, N times (latency). Burst: N orders sent at once, time to the
// last acknowledgement (throughput). Orders rest far from each other's prices, so none match.
// Usage: npx tsx bench/src/venue/fix-roundtrip.ts [--orders 5000] [--warmup 500] [--out FILE]
import { writeFileSync } from "node:fs";
import { loadavg } from "node:os";
import { connectFixClient, setFixLogLevel, startDevVenue, type Received } from "@svc/dev-venue";
import { machine } from "../machine.js";

const arg = (name: string, fallback: number) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : fallback;
};
const orders = arg("orders", 5000);
const warmup = arg("warmup", 500);
const outIndex = process.argv.indexOf("--out");
const out =
  outIndex > 0
    ? process.argv[outIndex + 1]!
    : new URL("../../results/venue-fix-roundtrip.json", import.meta.url);

setFixLogLevel("error");
// The machine is shared; a figure taken under load says so.
const loadAtStart = loadavg()[0];
const venue = await startDevVenue({
  username: "bench",
  password: "bench-password",
  symbols: ["BENCH"],
});
const client = await connectFixClient({
  port: venue.port,
  username: "bench",
  password: "bench-password",
});
await client.ready;

const waiting = new Map<string, (r: Received) => void>();
client.onMessage((r) => {
  if (r.msgType === "8" && r.body.ExecType === "0") waiting.get(r.body.ClOrdID as string)?.(r);
});

let seq = 0;
function order(): { clOrdId: string; acked: Promise<Received>; sentAt: bigint } {
  const clOrdId = `b${++seq}`;
  const acked = new Promise<Received>((resolve) => waiting.set(clOrdId, resolve));
  const sentAt = process.hrtime.bigint();
  client.send("D", {
    ClOrdID: clOrdId,
    Instrument: { Symbol: "BENCH" },
    Side: "1",
    TransactTime: new Date(),
    OrderQtyData: { OrderQty: 1 },
    OrdType: "2",
    // Each bid a tick below the last: they rest and never cross, so the book grows as a venue's would.
    Price: 1_000_000 - seq * 0.01,
  });
  return { clOrdId, acked, sentAt };
}

const ms = (ns: bigint) => Number(ns) / 1e6;
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

for (let i = 0; i < warmup; i++) await order().acked;

const latencies: number[] = [];
for (let i = 0; i < orders; i++) {
  const o = order();
  const r = await o.acked;
  waiting.delete(o.clOrdId);
  latencies.push(ms(r.at - o.sentAt));
}

const burstStart = process.hrtime.bigint();
const burst = Array.from({ length: orders }, () => order());
const acks = await Promise.all(burst.map((o) => o.acked));
const burstMs = ms(acks.reduce((last, r) => (r.at > last ? r.at : last), 0n) - burstStart);

const result = {
  figure:
    "FIX 4.4 NewOrderSingle -> ExecutionReport(New), dev venue, bare jspurefix initiator, loopback, one process",
  sequential: summary(latencies),
  burst: {
    orders,
    total_ms: Math.round(burstMs),
    orders_per_second: Math.round((orders / burstMs) * 1000),
  },
  resting_orders_at_end: venue.exchange.openOrders("bench").length,
  warmup,
  load_average_1m: { start: loadAtStart, end: loadavg()[0] },
  machine: machine(),
};
console.log(JSON.stringify(result, null, 2));
writeFileSync(out, `${JSON.stringify(result, null, 2)}\n`);

await client.close();
await venue.close();
