import { create } from "@bufbuild/protobuf";
import type { HandlerContext, ServiceImpl } from "@connectrpc/connect";
import {
  HaltResponseSchema,
  ReleaseHaltResponseSchema,
  type KillSwitchService,
} from "@svc/gen/svc/killswitch/v1/killswitch_pb.js";
import { auditOriginOf } from "@svc/lib/audit";
import { principalOf } from "@svc/lib/auth";
import type { EventBus } from "@svc/lib/bus";
import {
  AGENT_HALT_KEYS,
  publishKillSwitchChanged,
  type AgentHaltScope,
  type AgentHaltValue,
} from "@svc/lib/contracts";
import { Code, svcError } from "@svc/lib/errors";
import type { KeyValueStore } from "@svc/lib/kv";
import type { Logger } from "@svc/lib/telemetry";
import type { Kysely } from "kysely";
import * as repo from "../store/killswitch.repository.js";
import type { KillSwitchDatabase } from "../store/killswitch.table.js";

const WORK_CLASS: Record<AgentHaltScope, string> = {
  agents:
    "agents: every research chat (in flight ones end with a halted event; new ones answer 503 agents_halted until DELETE /agents/halt)",
  quant_agents:
    "quant agents: the research bots' chats (in flight ones end with a halted event; new ones answer 503 agents_halted until DELETE /quant-agents/halt)",
};

/**
 * The agent switches: POST /agents/halt and /quant-agents/halt write their key and broadcast it
 * (the chats listen and poll), DELETE releases; each is audited. The key is written before the
 * broadcast and the audit row in the same order as a release, so an answer of 200 means the key
 * holds: a store that does not answer is a 503 and nothing is recorded as done.
 */
export function createAgentHaltHandlers(deps: {
  db: Kysely<KillSwitchDatabase>;
  kv: KeyValueStore;
  bus: EventBus;
  log: Logger;
}): Pick<
  ServiceImpl<typeof KillSwitchService>,
  "haltAgents" | "haltQuantAgents" | "releaseAgents" | "releaseQuantAgents"
> {
  async function halt(scope: AgentHaltScope, reason: string, ctx: HandlerContext) {
    const p = principalOf(ctx);
    const key = AGENT_HALT_KEYS[scope];
    const value: AgentHaltValue = {
      reason: reason || `${scope} halted`,
      by: p.sub,
      at: new Date().toISOString(),
    };
    // Broadcast first: chats in flight stop even when the store hangs.
    await publishKillSwitchChanged(deps.bus, { key, engaged: true, reason: value.reason });
    try {
      await deps.kv.set(key, JSON.stringify(value));
    } catch (err) {
      throw svcError(
        Code.Unavailable,
        "killswitch_not_durable",
        `the ${scope} switch was broadcast (chats in flight stop) but its key ${key} could not be written: ${(err as Error).message}; new chats may start. Halt again.`,
        { key, not_durable: "key-value store" },
        { cause: err },
      );
    }
    await audit(ctx, `killswitch.${scope}.halted`, key, { reason: value.reason });
    deps.log.info({ scope, key, by: p.sub, reason: value.reason }, "agent switch engaged");
    return create(HaltResponseSchema, { workClass: WORK_CLASS[scope], halted: 0, ids: [] });
  }

  async function release(scope: AgentHaltScope, reason: string, ctx: HandlerContext) {
    const key = AGENT_HALT_KEYS[scope];
    let released: boolean;
    try {
      released = await deps.kv.delete(key);
    } catch (err) {
      throw svcError(
        Code.Unavailable,
        "killswitch_store_unreachable",
        `the ${scope} switch was not released: ${(err as Error).message}; it stays engaged`,
        { key },
        { cause: err },
      );
    }
    await publishKillSwitchChanged(deps.bus, {
      key,
      engaged: false,
      reason: reason || "released",
    });
    await audit(ctx, `killswitch.${scope}.released`, key, { reason, was_engaged: released });
    return create(ReleaseHaltResponseSchema, { key, released });
  }

  function audit(
    ctx: HandlerContext,
    action: string,
    key: string,
    details: Record<string, unknown>,
  ) {
    return deps.db.transaction().execute((trx) =>
      repo.recordAudit(trx, auditOriginOf(ctx), {
        action,
        outcome: "succeeded",
        resource: `agent_switch/${key}`,
        details: { key, ...details } as never,
      }),
    );
  }

  return {
    haltAgents: (req, ctx) => halt("agents", req.reason, ctx),
    haltQuantAgents: (req, ctx) => halt("quant_agents", req.reason, ctx),
    releaseAgents: (req, ctx) => release("agents", req.reason, ctx),
    releaseQuantAgents: (req, ctx) => release("quant_agents", req.reason, ctx),
  };
}
