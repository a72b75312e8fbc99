import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { serviceTokens } from "./service-tokens.js";

// A provider's discovery document and token endpoint, over real HTTP: counts what it is asked.
describe("a service's machine tokens for its peers", () => {
  let server: Server;
  let issuer: string;
  const asked: { resource: string; clientId: string }[] = [];
  let refuse = false;

  beforeAll(async () => {
    server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on("data", (c: Buffer) => chunks.push(c));
      req.on("end", () => {
        if (req.url === "/.well-known/openid-configuration") {
          res.end(
            JSON.stringify({
              authorization_endpoint: `${issuer}/auth`,
              token_endpoint: `${issuer}/token`,
            }),
          );
          return;
        }
        const form = new URLSearchParams(Buffer.concat(chunks).toString());
        asked.push({ resource: form.get("resource") ?? "", clientId: form.get("client_id") ?? "" });
        if (refuse) {
          res
            .writeHead(400)
            .end(JSON.stringify({ error: "invalid_client", error_description: "no such client" }));
          return;
        }
        res.end(
          JSON.stringify({
            access_token: `token-${asked.length}`,
            token_type: "Bearer",
            expires_in: 300,
          }),
        );
      });
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((r) => server.close(() => r())));
  afterEach(() => {
    vi.useRealTimers();
    asked.length = 0;
    refuse = false;
  });
  const source = (clientId: string) =>
    serviceTokens({ issuer, clientId, clientSecret: "s", timeoutMs: 5_000 });

  it("asks once per callee, for the callee's audience, and reuses the token", async () => {
    const tokens = source("svc-service-promotion");
    const [a, b] = await Promise.all([
      tokens.tokenFor("killswitch"),
      tokens.tokenFor("killswitch"),
    ]);
    expect(a).toBe(b);
    expect(await tokens.tokenFor("killswitch")).toBe(a);
    expect(await tokens.tokenFor("bots")).not.toBe(a);
    expect(asked).toEqual([
      { resource: "urn:svc:service:killswitch", clientId: "svc-service-promotion" },
      { resource: "urn:svc:service:bots", clientId: "svc-service-promotion" },
    ]);
  });

  it("fetches a new token a minute before the old one expires", async () => {
    vi.useFakeTimers({ toFake: ["Date"] });
    const tokens = source("svc-service-compliance");
    const first = await tokens.tokenFor("bots");
    vi.setSystemTime(Date.now() + 239_000);
    expect(await tokens.tokenFor("bots")).toBe(first);
    vi.setSystemTime(Date.now() + 2_000);
    expect(await tokens.tokenFor("bots")).not.toBe(first);
    expect(asked).toHaveLength(2);
  });

  it("does not remember a refusal: it says why, and the next call asks again", async () => {
    refuse = true;
    const tokens = source("svc-service-identity");
    await expect(tokens.tokenFor("bots")).rejects.toThrow(
      /refused a token for calling the bots service: invalid_client \(no such client\)/,
    );
    refuse = false;
    expect(await tokens.tokenFor("bots")).toMatch(/^token-/);
    expect(asked).toHaveLength(2);
  });
});
