/** What a runner asks of its kill-switch watcher (`engagedSince`, `engaged`). */
export interface KillSwitchGate {
  engagedSince(t: number): number;
  engaged(): unknown;
}

/**
 * When a session stopped starting bars: the instant a halt came, or a broadcast engaging one of
 * its keys reached the process (asked of the watcher before every bar, so it stops the moment the
 * process hears it, before the watcher's `onEngage` gets to this runner among thousands), or its
 * watcher already held an engagement when it was built. Latched: the halt follows.
 */
export class TradingGate {
  private closedAt = NaN;
  private readonly openedAt = performance.now();

  constructor(private readonly killSwitch?: KillSwitchGate) {}

  closed(): boolean {
    if (!Number.isNaN(this.closedAt)) return true;
    const gate = this.killSwitch;
    if (!gate) return false;
    let at = gate.engagedSince(this.openedAt);
    // Heard before this runner was built (while its session was starting): the watcher holds it,
    // and the halt it asked for is queued behind that start.
    if (Number.isNaN(at) && gate.engaged() !== null) at = performance.now();
    if (Number.isNaN(at)) return false;
    this.closedAt = at;
    return true;
  }

  /** When it closed (performance.now()), or NaN while it is open. */
  get since(): number {
    this.closed();
    return this.closedAt;
  }

  /** A halt closes it now, unless a broadcast closed it first. */
  close(): void {
    if (!this.closed()) this.closedAt = performance.now();
  }
}

/**
 * The wait between a session's bars at `speed` bars per second; 0, or more than a timer can pace
 * (over 1000), only yields to the event loop (a halt or a stop gets its turn). `cut` ends the
 * wait at once (a halt does not wait a whole bar interval).
 */
export class BarPacer {
  private wake: (() => void) | null = null;

  wait(speed: number): Promise<void> {
    const ms = speed > 0 ? 1000 / speed : 0;
    return new Promise((resolve) => {
      const done = () => {
        this.wake = null;
        resolve();
      };
      // A timer waits at least a millisecond: under that, only yield.
      if (ms < 1) {
        const t = setImmediate(done);
        this.wake = () => {
          clearImmediate(t);
          done();
        };
      } else {
        const t = setTimeout(done, ms);
        this.wake = () => {
          clearTimeout(t);
          done();
        };
      }
    });
  }

  cut(): void {
    this.wake?.();
  }
}
