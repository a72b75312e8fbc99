import { killChild, startChild, stopChild, type Child, type ChildSpec } from "./child.js";
import { LIVENESS, livenessProbe, watchLiveness } from "./liveness.js";
import { grpcServing, httpReady, waitReady } from "./ready.js";

const READY_MS = 60_000;
const GRACE_MS = 10_000;
/** A child that dies this often within the window is crash-looping: the topology goes down. */
const MAX_RESTARTS = 3;
const RESTART_WINDOW_MS = 60_000;
const RESTART_DELAY_MS = 500;

/** How the supervisor tells a child is ready: a health probe, or a line the child prints. */
export type Readiness = { grpc: string } | { http: string } | { line: string };

export interface Supervised {
  spec: ChildSpec;
  ready: Readiness;
}

/**
 * Keeps a set of children up as Kubernetes would keep pods: a child that dies after it was ready
 * is started again (a message names it); so is one that stops answering its liveness check
 * LIVENESS.failures times in a row (paused, hung: a message says so, then SIGKILL); one that dies
 * MAX_RESTARTS times in a minute, or before it was ever ready, takes the whole topology down,
 * naming it. Children ready by a printed line (the runners) have no health endpoint to ask. `stop` ends every child (group
 * SIGTERM, SIGKILL after a grace period), in the reverse order of `start`.
 */
export class Supervisor {
  private readonly running = new Map<string, Child>();
  private readonly deaths = new Map<string, number[]>();
  private stopping = false;

  constructor(
    private readonly cwd: string,
    private readonly say: (line: string) => void,
    private readonly fatal: (why: string) => void,
  ) {}

  pids(): Record<string, number> {
    return Object.fromEntries([...this.running].map(([name, c]) => [name, c.proc.pid!]));
  }

  /** Starts these children together and waits until every one is ready. */
  async start(group: Supervised[]): Promise<void> {
    await Promise.all(group.map((s) => this.launch(s)));
  }

  private async launch(s: Supervised): Promise<void> {
    let sawLine!: () => void;
    const lineSeen = new Promise<void>((r) => (sawLine = r));
    const wanted = "line" in s.ready ? s.ready.line : undefined;
    const child = startChild(s.spec, this.cwd, (l) => l === wanted && sawLine());
    this.running.set(s.spec.name, child);
    const probe =
      "grpc" in s.ready
        ? () => grpcServing((s.ready as { grpc: string }).grpc)
        : "http" in s.ready
          ? () => httpReady((s.ready as { http: string }).http)
          : async () => (await Promise.race([lineSeen.then(() => true), tick()])) === true;
    await waitReady(s.spec.name, probe, child.exited, READY_MS);
    const watch = this.watchLiveness(s, child);
    void child.exited.then((how) => {
      watch?.stop();
      this.died(s, child, how.signal ?? `code ${how.code}`);
    });
  }

  private watchLiveness(s: Supervised, child: Child): { stop(): void } | undefined {
    if ("line" in s.ready) return undefined;
    const probe = livenessProbe(s.ready, LIVENESS.timeoutMs);
    return watchLiveness(probe, LIVENESS, (misses, why) => {
      if (this.stopping) return;
      this.say(
        `${s.spec.name} (pid ${child.proc.pid}) did not answer its health check ${misses} times in a row (${why}); killing it (SIGKILL) to start it again`,
      );
      killChild(child);
    });
  }

  private died(s: Supervised, child: Child, how: string): void {
    if (this.stopping || this.running.get(s.spec.name) !== child) return;
    const now = Date.now();
    const recent = [...(this.deaths.get(s.spec.name) ?? []), now].filter(
      (t) => now - t < RESTART_WINDOW_MS,
    );
    this.deaths.set(s.spec.name, recent);
    if (recent.length >= MAX_RESTARTS)
      return this.fatal(`${s.spec.name} exited (${how}) ${recent.length} times within a minute`);
    this.say(`${s.spec.name} (pid ${child.proc.pid}) exited (${how}); starting it again`);
    setTimeout(() => {
      if (this.stopping) return;
      this.launch(s).then(
        () => this.say(`restarted ${s.spec.name} pid ${this.running.get(s.spec.name)?.proc.pid}`),
        (err: Error) => this.fatal(`${s.spec.name} did not come back: ${err.message}`),
      );
    }, RESTART_DELAY_MS);
  }

  /** Ends every child: the last started first, each group SIGTERM then SIGKILL after the grace. */
  async stop(order: string[][]): Promise<void> {
    this.stopping = true;
    for (const names of order)
      await Promise.all(
        names.map((n) => this.running.get(n)).map((c) => c && stopChild(c, GRACE_MS)),
      );
    await Promise.all([...this.running.values()].map((c) => stopChild(c, GRACE_MS)));
  }
}

function tick(): Promise<false> {
  return new Promise((r) => setTimeout(() => r(false), 100));
}
