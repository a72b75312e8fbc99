import type { EventBus } from "@svc/lib/bus";
import {
  AGENT_HALT_KEYS,
  listenKillSwitchKeys,
  PLATFORM_KILL_SWITCH_KEY,
  readAgentHaltValue,
  readKillSwitchValue,
  type AgentHaltScope,
} from "@svc/lib/contracts";
import type { KeyValueStore } from "@svc/lib/kv";

/** What stops a research chat: an agent switch, or the platform kill switch (a drill's too). */
export type ChatHaltScope = AgentHaltScope | "platform";

/** An engaged switch: which, and why. */
export interface AgentHalt {
  scope: ChatHaltScope;
  reason: string;
}

/**
 * The switches as a research chat sees them: the two agent switches and the platform kill switch
 * (which halts every bot, research bots' agents included, and is what a drill engages). Asked
 * before a chat starts, then watched while it streams, through the KillSwitchChanged broadcast
 * (at once) and a poll of the keys (when the bus is down). The key-value store is the truth.
 */
export function agentHalts(deps: { kv: KeyValueStore; bus: EventBus; pollMs: number }) {
  const scopes: ChatHaltScope[] = ["agents", "quant_agents", "platform"];
  const keys = scopes.map((s) =>
    s === "platform" ? PLATFORM_KILL_SWITCH_KEY : AGENT_HALT_KEYS[s],
  );
  const reasonOf = (scope: ChatHaltScope, value: string) =>
    scope === "platform" ? readKillSwitchValue(value).reason : readAgentHaltValue(value).reason;

  /** The first engaged switch, or null. Throws when the store does not answer. */
  async function engaged(): Promise<AgentHalt | null> {
    const values = await deps.kv.getMany(keys);
    const i = values.findIndex((v) => v);
    return i < 0 ? null : { scope: scopes[i]!, reason: reasonOf(scopes[i]!, values[i]!) };
  }

  /** Calls `onHalt` once when a switch engages; `stop` ends the watch. */
  function watch(onHalt: (h: AgentHalt) => void): { stop(): Promise<void> } {
    let done = false;
    const fire = (h: AgentHalt) => {
      if (done) return;
      done = true;
      onHalt(h);
    };
    const listening = listenKillSwitchKeys(deps.bus, keys, (e) => {
      const i = keys.indexOf(e.key);
      if (e.engaged && i >= 0) fire({ scope: scopes[i]!, reason: e.reason });
    });
    const timer = setInterval(() => {
      // A store that does not answer leaves the chat to the broadcast and its own deadline.
      void engaged()
        .then((h) => h && fire(h))
        .catch(() => undefined);
    }, deps.pollMs);
    timer.unref();
    return {
      async stop() {
        done = true;
        clearInterval(timer);
        await listening.stop();
      },
    };
  }

  return { engaged, watch };
}

export type AgentHalts = ReturnType<typeof agentHalts>;
