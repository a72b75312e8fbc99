import net from "node:net";
import type { AddressInfo } from "node:net";
import { decodeJwt } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AgentBrokerError, createAgentBroker } from "@svc/lib/auth";
import { call } from "../support/test-platform.js";
import {
  API_AUDIENCE,
  CLAIMS_NAMESPACE,
  startOidcPlatform,
  testUser,
  type OidcPlatform,
} from "../support/oidc-platform.js";

/**
 * The platform's agent token broker (SVC_AUTH_AGENT_BROKER_*) against the development provider:
 * a person's token and an agent's token become a delegated token the MCP tools accept; the
 * provider's refusals, a lifetime past the setting and a provider that hangs are errors.
 */
describe("agent token broker", () => {
  let o: OidcPlatform;
  const carol = testUser("carol", ["read:bots", "read:mcp:data"]);

  beforeAll(async () => {
    o = await startOidcPlatform("pglite", [carol], (idp) => ({
      SVC_AUTH_AGENT_BROKER_CLIENT_ID: idp.clients.agentBroker.clientId,
      SVC_AUTH_AGENT_BROKER_CLIENT_SECRET: idp.clients.agentBroker.clientSecret,
    }));
  }, 60_000);
  afterAll(async () => {
    await o?.close();
  });

  it("exchanges a person's token for one the MCP tools accept, naming the agent and the person", async () => {
    const broker = o.p.platform.agentBroker;
    expect(broker).toBeDefined();
    const person = await o.tokens.user("carol");
    const agent = await o.tokens.machine(undefined, "agent");
    const delegated = await broker!.delegate(person, agent, ["read:mcp:data"]);
    expect(delegated.expiresIn).toBe(300);
    expect(decodeJwt(delegated.accessToken)).toMatchObject({
      sub: "dev|carol",
      act: { sub: "agent|research" },
    });
    const res = await call(
      o.p.url,
      "POST",
      "/mcp/data/tools/bots.list/invoke",
      {},
      {
        authorization: `Bearer ${delegated.accessToken}`,
      },
    );
    expect(res.status, res.text).toBe(200);
    expect(res.body.actor).toEqual({
      agent_subject: "agent|research",
      on_behalf_of_sub: "dev|carol",
    });
  });

  it("passes the provider's refusal on with its code", async () => {
    const person = await o.tokens.user("carol");
    const agent = await o.tokens.machine(undefined, "agent");
    const refused = await o.p.platform
      .agentBroker!.delegate(person, agent, ["admin:tenant"])
      .catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(AgentBrokerError);
    expect((refused as AgentBrokerError).code).toBe("invalid_target");
  });

  it("refuses a token that lives longer than SVC_AUTH_AGENT_DELEGATION_TTL_SECONDS", async () => {
    const strict = createAgentBroker({
      issuer: o.idp.issuer,
      ...o.idp.clients.agentBroker,
      ttlSeconds: 60,
      timeoutMs: 2_000,
    });
    const person = await o.tokens.user("carol");
    const agent = await o.tokens.machine(undefined, "agent");
    await expect(strict.delegate(person, agent, ["read:mcp:data"])).rejects.toMatchObject({
      code: "ttl_exceeded",
    });
  });

  it("gets a delegation that never outlives the person's own token", async () => {
    // A provider whose access tokens live 120 s: a 300 s delegation would outlive the person's.
    const { startDevIdp, signIn, machineToken } = await import("@svc/dev-idp");
    const dave = testUser("dave", ["read:mcp:data"]);
    const idp = await startDevIdp({
      apiAudience: API_AUDIENCE,
      claimsNamespace: CLAIMS_NAMESPACE,
      users: [dave],
      accessTokenTtlSeconds: 120,
    });
    try {
      const person = await signIn({
        issuer: idp.issuer,
        clientId: idp.clients.login.clientId,
        redirectUri: "http://127.0.0.1/auth/callback",
        username: "dave",
        password: dave.password,
        resource: API_AUDIENCE,
      });
      const agent = await machineToken(idp.issuer, idp.clients.agent, API_AUDIENCE);
      const broker = createAgentBroker({
        issuer: idp.issuer,
        ...idp.clients.agentBroker,
        ttlSeconds: 300,
        timeoutMs: 5_000,
      });
      const delegated = await broker.delegate(person.accessToken, agent, ["read:mcp:data"]);
      expect(delegated.expiresIn).toBeLessThanOrEqual(120);
      expect(Number(decodeJwt(delegated.accessToken).exp)).toBeLessThanOrEqual(
        Number(decodeJwt(person.accessToken).exp),
      );
    } finally {
      await idp.close();
    }
  });

  it("gives up on a provider that accepts the connection and never answers, within its deadline", async () => {
    const hung = net.createServer(() => {});
    await new Promise<void>((resolve) => hung.listen(0, "127.0.0.1", resolve));
    try {
      const broker = createAgentBroker({
        issuer: `http://127.0.0.1:${(hung.address() as AddressInfo).port}`,
        clientId: "x",
        clientSecret: "y",
        ttlSeconds: 300,
        timeoutMs: 300,
      });
      await expect(broker.delegate("a", "b", ["read:mcp:data"])).rejects.toMatchObject({
        code: "provider_unreachable",
      });
    } finally {
      hung.close();
    }
  });
});
