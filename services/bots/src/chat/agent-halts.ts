import type { EventBus } from "@svc/lib/bus";
import {
  AGENT_HALT_KEYS,
  listenKillSwitchKeys,
  readAgentHaltValue,
  type AgentHaltScope,
} from "@svc/lib/contracts";
import type { KeyValueStore } from "@svc/lib/kv";

/** An engaged agent switch: which, and why. */
export interface AgentHalt {
  scope: AgentHaltScope;
  reason: string;
}

/**
 * The agent switches as a research chat sees them: asked before a chat starts, then watched
 * while it streams, through the KillSwitchChanged broadcast (at once) and a poll of the keys
 * (when the bus is down). The key-value store is the truth.
 */
export function agentHalts(deps: { kv: KeyValueStore; bus: EventBus; pollMs: number }) {
  const scopes: AgentHaltScope[] = ["agents", "quant_agents"];
  const keys = scopes.map((s) => AGENT_HALT_KEYS[s]);

  /** The first engaged switch, or null. Throws when the store does not answer. */
  async function engaged(): Promise<AgentHalt | null> {
    const values = await deps.kv.getMany(keys);
    const i = values.findIndex((v) => v);
    return i < 0 ? null : { scope: scopes[i]!, reason: readAgentHaltValue(values[i]!).reason };
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
