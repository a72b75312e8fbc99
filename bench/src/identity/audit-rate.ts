import { loadavg } from "node:os";
import { sql } from "kysely";
import { startPlatform } from "@svc/all-in-one";
import { verifyAuditTrail } from "@svc/cli/audit-verify";
import { publishAudit } from "@svc/lib/audit";
import { openEventBus, type EventBus } from "@svc/lib/bus";
import { deleteTestStream } from "@svc/lib/bus/testing-streams";
import { loadConfig } from "@svc/lib/config";
import { holdAuditConsumer } from "./held-audit-consumer.js";
import { withScratchDatabase } from "./scratch-database.js";

const NATS_URL = "nats://127.0.0.1:4222";
const round = (x: number, digits = 1) => Math.round(x * 10 ** digits) / 10 ** digits;

/** Publishes AuditRecorded events as an outbox relay would, 200 in flight; answers the seconds. */
async function publishBacklog(bus: EventBus, events: number): Promise<number> {
  const t0 = performance.now();
  for (let i = 0; i < events; i += 200)
    await Promise.all(
      Array.from({ length: Math.min(200, events - i) }, (_, j) =>
        publishAudit(
          bus,
          "bench",
          { system: "system:bench-identity" },
          {
            action: "bench.audit",
            outcome: "succeeded",
            resource: `bench/${i + j}`,
            details: { n: i + j },
          },
        ),
      ),
    );
  return (performance.now() - t0) / 1000;
}

/**
 * Audit rows the identity service appends to the chain per second: the platform starts on NATS
 * (a stream of the bench's own) with its audit consumer held, `events` AuditRecorded events go on
 * the stream as services' outbox relays publish them, then the consumer is released and the rows
 * are counted every 50 ms until all are in. The chain is then checked as `svc audit verify` does.
 */
export async function auditRowsPerSecond(
  backend: "pglite" | "postgres",
  events: number,
  /** An Ed25519 key (PKCS#8 PEM): the identity service then signs checkpoints of the chain. */
  checkpointKeyPem?: string,
) {
  return backend === "postgres"
    ? withScratchDatabase("svc_bench_identity_audit", (url) =>
        appendRate(events, url, checkpointKeyPem),
      )
    : appendRate(events, undefined, checkpointKeyPem);
}

async function appendRate(events: number, databaseUrl?: string, checkpointKeyPem?: string) {
  const backend = databaseUrl ? "postgres" : "pglite";
  const namespace = `benchid-${process.pid}-${backend}`;
  const stream = `${namespace.toUpperCase().replace(/-/g, "_")}_EVENTS`;
  const loadStart = round(loadavg()[0]!, 2);
  const bus = await openEventBus({ url: NATS_URL, namespace });
  try {
    const held = holdAuditConsumer(bus);
    const running = await startPlatform(
      loadConfig({
        SVC_PORT: "0",
        SVC_DATA_DIR: "memory://",
        ...(databaseUrl ? { SVC_DATABASE_URL: databaseUrl } : {}),
        SVC_NATS_URL: NATS_URL,
        SVC_NATS_NAMESPACE: namespace,
        SVC_LOG_LEVEL: "silent",
        ...(checkpointKeyPem ? { SVC_AUDIT_CHECKPOINT_PRIVATE_KEY_PEM: checkpointKeyPem } : {}),
      }),
      { bus: held.bus },
    );
    try {
      const publishS = await publishBacklog(bus, events);
      const count = async () => {
        const { rows } = await sql<{ n: string | number }>`
          select count(*) as n from identity.security_audit_events`.execute(running.platform.db.db);
        return Number(rows[0]?.n ?? 0);
      };
      const t0 = performance.now();
      held.release();
      let n = 0;
      let firstRow: { t: number; n: number } | undefined;
      while (n < events && performance.now() - t0 < 60_000) {
        await new Promise((r) => setTimeout(r, 50));
        n = await count();
        if (n > 0 && !firstRow) firstRow = { t: performance.now(), n };
      }
      const tEnd = performance.now();
      const seconds = (tEnd - t0) / 1000;
      if (n < events || !firstRow) throw new Error(`${backend}: ${n} of ${events} rows after 60 s`);
      const verified = await verifyAuditTrail(running.url, {}, 60_000);
      return {
        backend: backend === "pglite" ? "PGlite in memory" : "Postgres 127.0.0.1:5432",
        events,
        published_per_s: Math.round(events / publishS),
        rows_per_s: Math.round(events / seconds),
        seconds: round(seconds, 2),
        rows_per_s_after_first_row: Math.round(
          (events - firstRow.n) / ((tEnd - firstRow.t) / 1000),
        ),
        chain: {
          verified_with: "verifyAuditTrail of svc audit verify, over GET /admin/audit-events",
          rows: verified.rows,
          intact: verified.broken === undefined && verified.rows === events,
          ...(verified.broken ? { broken: verified.broken } : {}),
          head_hash: verified.headHash,
        },
        load_average_1m: { start: loadStart, end: round(loadavg()[0]!, 2) },
      };
    } finally {
      await running.close();
    }
  } finally {
    await bus.close();
    await deleteTestStream(NATS_URL, stream);
  }
}
