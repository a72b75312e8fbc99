import { spawn } from "node:child_process";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";

/** What the bench's child process answers once the platform is up. */
export interface ServerInfo {
  gateway: string;
  botRef: string;
  storage: string;
  warmTokens: string[];
  freshTokens: string[];
}

/** Which membership lookup the child's platform uses: as shipped, without a cache, or none. */
export type LookupMode = "shipped" | "uncached" | "off";

/**
 * Starts membership-server.ts in its own process (the load generator and the platform then each
 * get one of the two cores, as in bench/gateway) and lets the caller switch its lookup.
 */
export async function startMembershipServer(args: string[]) {
  const child = spawn(
    process.execPath,
    ["--import", "tsx", fileURLToPath(new URL("./membership-server.ts", import.meta.url)), ...args],
    { stdio: ["pipe", "pipe", "inherit"] },
  );
  const waiting: Array<(line: string) => void> = [];
  const exited = new Promise<never>((_, reject) =>
    child.once("exit", (code) => reject(new Error(`the bench server exited (${code})`))),
  );
  createInterface({ input: child.stdout! }).on("line", (line) => waiting.shift()?.(line));
  const next = () =>
    Promise.race([new Promise<string>((resolve) => waiting.push(resolve)), exited]);
  const info = JSON.parse(await next()) as ServerInfo;
  return {
    info,
    async use(mode: LookupMode) {
      const answer = next();
      child.stdin!.write(`mode ${mode}\n`);
      if ((await answer) !== "ok") throw new Error(`the bench server refused mode ${mode}`);
    },
    /** Times the cold path's own steps in the child (timeColdSteps), 200 people no phase used. */
    async timeColdSteps() {
      const answer = next();
      child.stdin!.write("cold-steps\n");
      return JSON.parse(await answer) as Record<
        string,
        { n: number; p50_us: number; p99_us: number }
      >;
    },
    async stop() {
      exited.catch(() => {});
      const gone = new Promise((resolve) => child.once("exit", resolve));
      child.kill("SIGTERM");
      await gone;
    },
  };
}
