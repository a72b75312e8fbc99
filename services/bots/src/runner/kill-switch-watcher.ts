import type { EventBus } from "@svc/lib/bus";
import {
  killSwitchKeysCovering,
  killSwitchModeName,
  listenKillSwitchKeys,
  readKillSwitchValue,
  type KillSwitchModeName,
} from "@svc/lib/contracts";
import { withDeadline } from "@svc/lib/deadline";
import { killSwitchPollFailures } from "@svc/lib/telemetry";
import type { KeyValueStore } from "@svc/lib/kv";
import type { KillSwitchChanged } from "@svc/gen/svc/events/v1/events_pb.js";
import { timestampMs } from "@bufbuild/protobuf/wkt";

export type HaltModeName = KillSwitchModeName;
export interface Engagement {
  key: string;
  mode: HaltModeName;
  reason: string;
  /** Set when a broadcast told it: when the killswitch service sent it (epoch ms), and the trace. */
  broadcast?: { sentAtMs: number; traceparent: string };
}

/** The three keys that cover a bot: the platform, its fleet, itself (most general first). */
export function keysFor(slug: string, fleet: string | null): string[] {
  return killSwitchKeysCovering(slug, fleet);
}

function parseValue(key: string, value: string): Engagement {
  const { mode, reason } = readKillSwitchValue(value);
  return { key, mode, reason };
}

/**
 * What one broadcast says, worked out once for every runner of the process that hears it: the
 * hub hands them all the same message object, one after another, so the last one seen is cached.
 * `at` is when the process heard it (what a poll that began before it must not undo).
 */
let lastHeard: { e: KillSwitchChanged; at: number; engagement: Engagement | null } | undefined;
function hearing(e: KillSwitchChanged): { at: number; engagement: Engagement | null } {
  if (lastHeard?.e !== e)
    lastHeard = {
      e,
      at: performance.now(),
      engagement: e.engaged
        ? Object.freeze({
            key: e.key,
            mode: killSwitchModeName(e.mode),
            reason: e.reason,
            broadcast: Object.freeze({
              sentAtMs: e.sentAt ? timestampMs(e.sentAt) : NaN,
              traceparent: e.traceparent,
            }),
          })
        : null,
    };
  return lastHeard;
}

export interface KillSwitchWatcher {
  stop(): Promise<void>;
  /** The engagement that holds now (the most general engaged key), or null. */
  engaged(): Engagement | null;
  /**
   * When (performance.now()) a broadcast engaging one of the keys reached this process after
   * `t`, or NaN: the runner's gate (`RunnerOptions.killSwitch`), set for every runner of the
   * process at once, before `onEngage` is called for each.
   */
  engagedSince(t: number): number;
}

/**
 * Watches the kill-switch keys of one runner: the bus broadcast makes it react at once, the
 * key-value poll every `pollMs` catches what the broadcast missed and is the truth on release.
 * An engagement the broadcast announced holds until a poll has seen its key, or a broadcast
 * releases it: a key still missing only means the service has not written it yet (the store hung
 * or restarted between the broadcast and the write), never that it was released. If neither the
 * store nor the bus answers for three polls (a refused connection and a store that hangs count
 * alike), the runner must fail safe.
 */
export function watchKillSwitch(o: {
  kv: KeyValueStore;
  bus: EventBus;
  keys: string[];
  pollMs: number;
  onEngage(e: Engagement): void;
  onRelease(): void;
  onBlind(blind: boolean): void;
}): KillSwitchWatcher {
  // Per key, by its position in o.keys: arrays made once, so a broadcast heard by every runner
  // of a process allocates nothing per runner.
  const state: Array<Engagement | null> = o.keys.map(() => null);
  // A poll that began before a broadcast must not undo it (the key may have been read just before it was set).
  const touched = o.keys.map(() => -Infinity);
  // Keys a broadcast engaged that no poll has seen set yet.
  const unconfirmed = o.keys.map(() => false);
  let current: Engagement | null = null;
  let failures = 0;
  let blind = false;
  let stopped = false;

  const settle = () => {
    // The most general engaged key (platform, fleet, bot); a loop, not find: on a broadcast
    // every runner of the process runs this at once.
    let next: Engagement | null = null;
    for (let i = 0; i < state.length && !next; i++) next = state[i]!;
    if (next && !current) o.onEngage(next);
    if (!next && current) o.onRelease();
    current = next;
  };

  // A malformed broadcast never reaches here (the reader drops it); the poll still runs. The
  // process's one subscription hands this runner only the broadcasts of its own keys.
  const listener = listenKillSwitchKeys(o.bus, o.keys, (e, i) => {
    if (stopped) return;
    const heard = hearing(e);
    touched[i] = heard.at;
    state[i] = heard.engagement;
    unconfirmed[i] = e.engaged;
    settle();
  });

  const poll = async () => {
    const started = performance.now();
    try {
      // A store that hangs must count as a failed poll, not stall the loop: every poll has a deadline.
      const values = await withDeadline(o.kv.getMany(o.keys), o.pollMs, "kill-switch key poll");
      failures = 0;
      o.keys.forEach((k, i) => {
        if (touched[i]! >= started) return;
        if (values[i]) {
          state[i] = parseValue(k, values[i]!);
          unconfirmed[i] = false;
        } else if (!unconfirmed[i]) state[i] = null;
      });
      settle();
    } catch {
      failures++;
      killSwitchPollFailures.inc();
    }
    const nowBlind = failures >= 3 && !o.bus.connected();
    if (nowBlind !== blind) {
      blind = nowBlind;
      o.onBlind(blind);
    }
  };

  let timer: NodeJS.Timeout | undefined;
  // Runners started together would poll together for ever; a jitter below the interval spreads
  // them without making any interval longer than pollMs.
  const loop = async () => {
    await poll();
    if (!stopped) timer = setTimeout(loop, o.pollMs * (0.9 + Math.random() * 0.1));
  };
  void loop();

  return {
    async stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      await listener.stop();
    },
    engaged: () => current,
    engagedSince: (t) => listener.engagedSince(t),
  };
}
