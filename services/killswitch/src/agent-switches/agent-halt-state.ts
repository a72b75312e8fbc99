import { create } from "@bufbuild/protobuf";
import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import type { ServiceImpl } from "@connectrpc/connect";
import {
  GetAgentHaltsResponseSchema,
  type AgentHalt,
  type KillSwitchService,
} from "@svc/gen/svc/killswitch/v1/killswitch_pb.js";
import { AGENT_HALT_KEYS, readAgentHaltValue, type AgentHaltScope } from "@svc/lib/contracts";
import { Code, svcError } from "@svc/lib/errors";
import type { KeyValueStore } from "@svc/lib/kv";

const SCOPES: readonly AgentHaltScope[] = ["agents", "quant_agents"];

/**
 * GET /agents/halt: both agent switches as their keys hold them, so an operator sees what
 * `svc halt-all`, POST /agents/halt and /quant-agents/halt engaged before releasing it. One read
 * of both keys; a store that does not answer is a 503, never "not engaged".
 */
export function createAgentHaltStateHandlers(deps: {
  kv: KeyValueStore;
}): Pick<ServiceImpl<typeof KillSwitchService>, "getAgentHalts"> {
  return {
    async getAgentHalts() {
      const keys = SCOPES.map((s) => AGENT_HALT_KEYS[s]);
      let values: Array<string | null>;
      try {
        values = await deps.kv.getMany(keys);
      } catch (err) {
        throw svcError(
          Code.Unavailable,
          "killswitch_store_unreachable",
          "the kill-switch key-value store did not answer; whether the agent switches are engaged is unknown",
          {},
          { cause: err },
        );
      }
      return create(GetAgentHaltsResponseSchema, {
        items: SCOPES.map((scope, i) => stateOf(scope, values[i] ?? null)),
      });
    },
  };
}

function stateOf(scope: AgentHaltScope, value: string | null): Omit<AgentHalt, "$typeName"> {
  const key = AGENT_HALT_KEYS[scope];
  if (value === null) return { scope, key, engaged: false, reason: "", engagedBy: "" };
  const v = readAgentHaltValue(value);
  const at = v.at ? new Date(v.at) : undefined;
  return {
    scope,
    key,
    engaged: true,
    reason: v.reason,
    engagedBy: v.by,
    ...(at && !Number.isNaN(at.getTime()) ? { engagedAt: timestampFromDate(at) } : {}),
  };
}
