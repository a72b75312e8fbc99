import { execFileSync, spawn, type ChildProcess } from "node:child_process";
import { chownSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import { freePort, waitForPort } from "./private-servers.js";

/** A Postgres server of the test's own, which it may restart; never the machine's shared one. */
export interface PrivatePostgres {
  /** postgres://postgres@127.0.0.1:<port>/postgres (trust auth on loopback). */
  url: string;
  /** A fast shutdown (SIGINT: every connection is cut) and a start on the same port and data. */
  restart(): Promise<void>;
  stop(): Promise<void>;
}

/** Debian's server binaries, the newest version installed. */
function binDir(): string {
  const versions = readdirSync("/usr/lib/postgresql").sort((a, b) => Number(b) - Number(a));
  if (versions.length === 0) throw new Error("no PostgreSQL server under /usr/lib/postgresql");
  return `/usr/lib/postgresql/${versions[0]}/bin`;
}

/** initdb and postgres refuse root: as root, they run as the postgres user the package made. */
function runAs(): { uid: number; gid: number } | undefined {
  if (process.getuid?.() !== 0) return undefined;
  const uid = Number(execFileSync("id", ["-u", "postgres"]).toString().trim());
  const gid = Number(execFileSync("id", ["-g", "postgres"]).toString().trim());
  return { uid, gid };
}

export async function startPrivatePostgres(): Promise<PrivatePostgres> {
  const bin = binDir();
  const user = runAs();
  const dir = mkdtempSync(join(tmpdir(), "svc-pg-"));
  if (user) chownSync(dir, user.uid, user.gid);
  const data = join(dir, "data");
  execFileSync(`${bin}/initdb`, ["-D", data, "-U", "postgres", "--auth=trust", "-E", "UTF8"], {
    stdio: "ignore",
    timeout: 60_000,
    ...(user ?? {}),
  });
  const port = await freePort();
  let proc: ChildProcess;
  const launch = async () => {
    proc = spawn(
      `${bin}/postgres`,
      ["-D", data, "-p", String(port), "-k", dir, "-c", "listen_addresses=127.0.0.1"]
        // Durability is not what this server is for: a test's data lives minutes.
        .concat(["-c", "fsync=off", "-c", "synchronous_commit=off", "-c", "full_page_writes=off"]),
      { stdio: "ignore", ...(user ?? {}) },
    );
    await waitForPort(port);
    await acceptingQueries(`postgres://postgres@127.0.0.1:${port}/postgres`);
  };
  const shutDown = () =>
    new Promise<void>((resolve) => {
      if (proc.exitCode !== null || proc.signalCode !== null) return resolve();
      proc.once("exit", () => resolve());
      proc.kill("SIGINT");
    });
  await launch();
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    async restart() {
      await shutDown();
      await launch();
    },
    async stop() {
      await shutDown();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * The port opens before recovery ends ("the database system is starting up"): ready is when a
 * query answers, asked again until then, for at most 30 s.
 */
async function acceptingQueries(url: string): Promise<void> {
  const end = Date.now() + 30_000;
  for (;;) {
    const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 2_000 });
    client.on("error", () => {});
    try {
      await client.connect();
      await client.query("select 1");
      return;
    } catch (err) {
      if (Date.now() > end) throw new Error(`the private Postgres does not answer: ${String(err)}`);
      await new Promise((r) => setTimeout(r, 50));
    } finally {
      await client.end().catch(() => {});
    }
  }
}
