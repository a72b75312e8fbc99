import { randomBytes } from "node:crypto";
import pg from "pg";
import { loadConfig } from "@svc/lib/config";
import { openEmbeddedDatabase, startPlatform, type RunningPlatform } from "@svc/all-in-one";

export type Backend = "pglite" | "postgres";

/**
 * The limit of a test that starts its own platform: the start-up counts against it, and under
 * load the start-up alone has taken 10-30 s on a 2-core machine (the default limit is 20 s).
 */
export const PLATFORM_START_TIMEOUT_MS = 60_000;
export const BACKENDS: Backend[] = ["pglite", "postgres"];

export function testDatabaseUrl(): string {
  return process.env.SVC_TEST_DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";
}

/**
 * The whole platform on a random loopback port, on PGlite in memory or on a fresh database of the
 * real Postgres server (one per call, dropped on close), so test files never share state.
 */
export async function startTestPlatform(
  backend: Backend,
  env: Record<string, string> = {},
  overrides: Parameters<typeof startPlatform>[1] = {},
): Promise<RunningPlatform> {
  let databaseUrl: string | undefined;
  let drop = async () => {};
  if (backend === "postgres" && !env.SVC_DATABASE_URL) {
    const created = await createTestDatabase();
    databaseUrl = created.url;
    drop = created.drop;
  }
  const config = loadConfig({
    SVC_PORT: "0",
    SVC_DATA_DIR: "memory://",
    SVC_LOG_LEVEL: "silent",
    ...(databaseUrl ? { SVC_DATABASE_URL: databaseUrl } : {}),
    ...env,
  });
  // PGlite starts from the migrated template, as `npm start` does: initdb and every migration
  // once per set of migrations, not once per test file (about 3 s of CPU a start saved).
  const db = overrides.db ? undefined : await openEmbeddedDatabase(config);
  const running = await startPlatform(config, db ? { ...overrides, db } : overrides).catch(
    async (err: unknown) => {
      await db?.close();
      throw err;
    },
  );
  return {
    ...running,
    async close() {
      await running.close();
      await db?.close();
      await drop();
    },
  };
}

/** A fresh database on the real Postgres server; `drop` removes it. */
export async function createTestDatabase(): Promise<{ url: string; drop(): Promise<void> }> {
  const name = `svc_test_${randomBytes(6).toString("hex")}`;
  const admin = new pg.Client({ connectionString: testDatabaseUrl() });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const url = new URL(testDatabaseUrl());
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    async drop() {
      const c = new pg.Client({ connectionString: testDatabaseUrl() });
      await c.connect();
      await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await c.end();
    },
  };
}

export function testNatsUrl(): string {
  return process.env.SVC_TEST_NATS_URL ?? "nats://127.0.0.1:4222";
}

/** A NATS subject space of its own, so tests sharing the server never see each other's events. */
export function testNatsNamespace(): string {
  return `t${randomBytes(5).toString("hex")}`;
}

/** fetch against the platform, JSON in and out. */
export async function call(
  base: string,
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
  // Tests read answers as loose JSON and let expect() judge them; typing every answer here would
  // only restate the proto. The one any of the code base, on purpose.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
): Promise<{ status: number; body: any; headers: Headers; text: string }> {
  // As the CLI does: a script's bodiless write carries X-Svc-Request (the edge's request guard).
  const init: RequestInit = { method, headers: { "x-svc-request": "test", ...headers } };
  if (body !== undefined) {
    init.body = typeof body === "string" ? body : JSON.stringify(body);
    (init.headers as Record<string, string>)["content-type"] ??= "application/json";
  }
  const res = await fetch(`${base}${path}`, init);
  const text = await res.text();
  let parsed: unknown = undefined;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    parsed = undefined;
  }
  return { status: res.status, body: parsed, headers: res.headers, text };
}
