/** The agent switches: every agent (POST /agents/halt) or the research-bot agents only. */
export type AgentHaltScope = "agents" | "quant_agents";

/**
 * The key-value key of each agent switch. Engaged (any value: the JSON the killswitch service
 * writes), research chats refuse to start and those in flight end; the killswitch service also
 * broadcasts KillSwitchChanged with the key, so they end at once rather than at the next poll.
 *
 * @example await kv.get(AGENT_HALT_KEYS.agents) // '{"reason":"drill","by":"user|op",...}' or null
 */
export const AGENT_HALT_KEYS: Record<AgentHaltScope, string> = {
  agents: "svc:agents:halt:all",
  quant_agents: "svc:agents:halt:research",
};

/** The switches that stop a research bot's agent: both. */
export const RESEARCH_AGENT_HALT_SCOPES: readonly AgentHaltScope[] = ["agents", "quant_agents"];

/** What an agent switch's key holds. */
export interface AgentHaltValue {
  reason: string;
  by: string;
  at: string;
}

/** Reads a key's value; text set by hand is the reason. */
export function readAgentHaltValue(value: string): AgentHaltValue {
  try {
    const v = JSON.parse(value) as Partial<AgentHaltValue> | null;
    if (v && typeof v === "object")
      return { reason: String(v.reason ?? ""), by: String(v.by ?? ""), at: String(v.at ?? "") };
  } catch {
    // Set by hand: its text is the reason.
  }
  return { reason: value, by: "", at: "" };
}
