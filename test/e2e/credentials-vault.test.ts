import { randomBytes } from "node:crypto";
import { createClient } from "@connectrpc/connect";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunningPlatform } from "@svc/all-in-one";
import { CredentialService } from "@svc/gen/svc/identity/v1/identity_pb.js";
import { freshMfaClaims, startTestIdp, userClaims, type TestIdp } from "@svc/lib/auth/testing";
import { createInProcessTransport, internalInterceptors } from "@svc/lib/server";
import { createLogger } from "@svc/lib/telemetry";
import { grantMembership } from "../support/memberships.js";
import {
  call,
  createTestDatabase,
  PLATFORM_START_TIMEOUT_MS,
  startTestPlatform,
} from "../support/test-platform.js";
import { eventually } from "../support/until.js";

const SCOPES = ["read:credentials", "write:credentials", "read:audit", "admin:platform"];
const as = (token: string) => ({ authorization: `Bearer ${token}` });
/** Secrets of this run: each is searched for in every answer and every log line. */
const SECRETS = {
  fixPassword: `fixpw-${randomBytes(8).toString("hex")}`,
  rotatedPassword: `fixpw2-${randomBytes(8).toString("hex")}`,
  modelKey: `sk-${randomBytes(12).toString("hex")}`,
  exchangeSecret: `exs-${randomBytes(12).toString("hex")}`,
};
const fixSecret = (password: string) => ({
  broker_fix: { sender_comp_id: "SVC", target_comp_id: "DEVVENUE", username: "desk", password },
});

/** A client of the identity service as `service` calls it in one process. */
const runnerOf = (p: RunningPlatform, service: string) =>
  createClient(
    CredentialService,
    createInProcessTransport(p.modules.find((m) => m.name === "identity")!.routes, {
      interceptors: internalInterceptors(p.platform.log, service),
    }),
  );

/** Log lines of the platform, kept to search for secrets. */
function capturedLog() {
  const lines: string[] = [];
  return {
    lines,
    log: createLogger({
      name: "svc",
      level: "debug",
      destination: { write: (s: string) => lines.push(s) },
    }),
  };
}

describe("the credentials vault through the gateway", () => {
  let idp: TestIdp;
  let p: RunningPlatform;
  const logs = capturedLog();
  const answers: string[] = [];
  let plain: () => Promise<Record<string, string>>;
  let mfa: () => Promise<Record<string, string>>;
  const send = async (
    method: string,
    path: string,
    body: unknown,
    headers: Record<string, string>,
  ) => {
    const res = await call(p.url, method, path, body, headers);
    answers.push(res.text);
    return res;
  };
  const runnerAs = (service: string) => runnerOf(p, service);

  beforeAll(async () => {
    idp = await startTestIdp();
    p = await startTestPlatform(
      "postgres",
      {
        SVC_AUTH_PROVIDER: "oidc",
        SVC_AUTH_OIDC_ISSUER: idp.issuer,
        SVC_AUTH_OIDC_AUDIENCE: idp.audience,
        SVC_VAULT_KEK: randomBytes(32).toString("base64"),
      },
      { log: logs.log },
    );
    await grantMembership(p, "user|ops");
    plain = async () => as(await idp.sign(userClaims("user|ops", SCOPES)));
    mfa = async () => as(await idp.sign(freshMfaClaims("user|ops", SCOPES)));
  }, PLATFORM_START_TIMEOUT_MS);
  afterAll(async () => {
    await p?.close();
    await idp?.stop();
  });

  it("stores a model key with a plain sign-in and lists its metadata, never its secret", async () => {
    const made = await send(
      "POST",
      "/credentials",
      { name: "research-llm", secret: { model_api_key: { api_key: SECRETS.modelKey } } },
      await plain(),
    );
    expect(made.status, made.text).toBe(201);
    expect(made.body).toMatchObject({ name: "research-llm", kind: "model_api_key", version: "1" });
    expect(made.body.fingerprint).toMatch(/^[0-9a-f]{32}$/);
    const list = await send("GET", "/credentials", undefined, await plain());
    expect(list.status).toBe(200);
    expect(list.body.items.map((c: { name: string }) => c.name)).toContain("research-llm");
    expect(Object.keys(list.body.items[0])).not.toContain("secret");
  });

  it("asks a broker credential's create and rotate for step-up MFA, and audits both", async () => {
    const body = { name: "desk-fix", bot: "alpha", secret: fixSecret(SECRETS.fixPassword) };
    const refused = await send("POST", "/credentials", body, await plain());
    expect(refused.status, refused.text).toBe(401);
    expect(refused.body.error.code).toBe("insufficient_user_authentication");
    expect(refused.headers.get("www-authenticate")).toContain(
      'error="insufficient_user_authentication"',
    );
    const made = await send("POST", "/credentials", body, await mfa());
    expect(made.status, made.text).toBe(201);
    expect(made.body.kind).toBe("broker_fix");
    const stepUps = await eventually(
      "the refused step-up reaches the audit trail",
      async () =>
        (
          await call(
            p.url,
            "GET",
            "/admin/audit-events?action=auth.step_up&actor=user%7Cops",
            undefined,
            await plain(),
          )
        ).body.items as Array<Record<string, unknown>>,
      (items) => items.length > 0,
    );
    expect(stepUps[0]).toMatchObject({
      outcome: "denied",
      resource: "rpc/svc.identity.v1.CredentialService/CreateCredential",
    });

    const rotate = fixSecret(SECRETS.rotatedPassword);
    const stale = await send("POST", "/credentials/desk-fix/rotate", rotate, await plain());
    expect(stale.status).toBe(401);
    const rotated = await send("POST", "/credentials/desk-fix/rotate", rotate, await mfa());
    expect(rotated.status, rotated.text).toBe(200);
    expect(rotated.body.version).toBe("2");
    expect(rotated.body.fingerprint).not.toBe(made.body.fingerprint);

    const audit = await send(
      "GET",
      "/admin/audit-events?resource=credential%2Fdesk-fix",
      undefined,
      await plain(),
    );
    expect(audit.body.items.map((e: { action: string }) => e.action)).toEqual([
      "identity.credential.created",
      "identity.credential.rotated",
    ]);
    expect(audit.body.items[0]).toMatchObject({
      actor: { subject: "user|ops" },
      details: { kind: "broker_fix", name: "desk-fix", bot: "alpha" },
    });
  });

  it("delivers the secret to the bots service's runner of the bot, the rotated one, and to nobody else", async () => {
    const runner = runnerAs("bots");
    const read = await runner.resolveCredential({ name: "desk-fix", bot: "alpha" });
    expect(read.secret?.secret.case).toBe("brokerFix");
    expect(read.secret?.secret.value).toMatchObject({ password: SECRETS.rotatedPassword });
    await expect(
      runnerAs("promotion").resolveCredential({ name: "desk-fix", bot: "alpha" }),
    ).rejects.toMatchObject({ rawMessage: expect.stringMatching(/its callers are bots/) });
    await expect(runner.resolveCredential({ name: "desk-fix", bot: "beta" })).rejects.toMatchObject(
      {
        rawMessage: expect.stringMatching(/not for bot beta/),
      },
    );
  });

  it("asks every delete for step-up MFA, whatever the kind", async () => {
    const refused = await send("DELETE", "/credentials/research-llm", undefined, await plain());
    expect(refused.status).toBe(401);
    expect(refused.body.error.code).toBe("insufficient_user_authentication");
    const gone = await send("DELETE", "/credentials/research-llm", undefined, await mfa());
    expect(gone.status, gone.text).toBe(200);
    const again = await send("DELETE", "/credentials/research-llm", undefined, await mfa());
    expect(again.status).toBe(404);
    expect(again.body.error.code).toBe("credential_not_found");
  });

  it.each([
    [
      "a NUL byte in a secret",
      { name: "nul-key", secret: { model_api_key: { api_key: "sk-\u0000x" } } },
    ],
    [
      "a value past its bound",
      { name: "huge-key", secret: { model_api_key: { api_key: "k".repeat(5000) } } },
    ],
    [
      "a name with a Cyrillic look-alike",
      { name: "desk-fi\u0445", secret: { model_api_key: { api_key: "sk" } } },
    ],
    [
      "a name with a NUL byte",
      { name: "desk\u0000fix", secret: { model_api_key: { api_key: "sk" } } },
    ],
    ["no secret", { name: "empty" }],
    [
      "a bot and a fleet both",
      { name: "both", bot: "a", fleet: "b", secret: { model_api_key: { api_key: "sk" } } },
    ],
  ])("refuses %s with a 400 naming the field, and stores nothing", async (_what, body) => {
    const res = await send("POST", "/credentials", body, await mfa());
    expect(res.status, res.text).toBe(400);
    expect(res.body.error.message).toBeTruthy();
    const list = await send("GET", "/credentials", undefined, await plain());
    expect(list.body.items.map((c: { name: string }) => c.name)).toEqual(["desk-fix"]);
  });

  it("of two creates of one name at once, one is created and the other answers 409", async () => {
    const body = {
      name: "race",
      secret: { exchange_api: { api_key: "k", secret: SECRETS.exchangeSecret } },
    };
    const headers = await mfa();
    const both = await Promise.all([
      send("POST", "/credentials", body, headers),
      send("POST", "/credentials", body, headers),
    ]);
    expect(both.map((r) => r.status).sort()).toEqual([201, 409]);
    expect(both.find((r) => r.status === 409)!.body.error.code).toBe("credential_exists");
  });

  it("never returned a secret in any answer nor wrote one in any log line", () => {
    const log = logs.lines.join("\n");
    // The calls were logged (at debug), so their absence from the log is not for want of lines.
    expect(log).toContain("CreateCredential");
    for (const secret of Object.values(SECRETS)) {
      expect(answers.join("\n")).not.toContain(secret);
      expect(log).not.toContain(secret);
    }
  });
});

describe("the credentials vault without a key-encryption key", () => {
  let p: RunningPlatform;
  const logs = capturedLog();
  beforeAll(async () => {
    p = await startTestPlatform("postgres", {}, { log: logs.log });
  }, PLATFORM_START_TIMEOUT_MS);
  afterAll(async () => {
    await p?.close();
  });

  it("answers 503 vault_unavailable and said so at start", async () => {
    const res = await call(p.url, "GET", "/credentials");
    expect(res.status).toBe(503);
    expect(res.body.error.code).toBe("vault_unavailable");
    expect(res.body.error.message).toMatch(/SVC_VAULT_KEK is not set/);
    expect(logs.lines.join("\n")).toMatch(/the credentials vault is off: SVC_VAULT_KEK is not set/);
  });
});

describe("rotating the key-encryption key", () => {
  let idp: TestIdp;
  let database: { url: string; drop(): Promise<void> };
  const oldKek = randomBytes(32).toString("base64");
  const newKek = randomBytes(32).toString("base64");
  const identityWith = async (env: Record<string, string>) => {
    const p = await startTestPlatform("postgres", {
      SVC_DATABASE_URL: database.url,
      SVC_AUTH_PROVIDER: "oidc",
      SVC_AUTH_OIDC_ISSUER: idp.issuer,
      SVC_AUTH_OIDC_AUDIENCE: idp.audience,
      ...env,
    });
    await grantMembership(p, "user|ops");
    return p;
  };
  beforeAll(async () => {
    idp = await startTestIdp();
    database = await createTestDatabase();
  });
  afterAll(async () => {
    await database?.drop();
    await idp?.stop();
  });

  it(
    "keeps old credentials readable with the previous key, and a rewrap moves them to the new one",
    async () => {
      const mfa = async () => as(await idp.sign(freshMfaClaims("user|ops", SCOPES)));
      const before = await identityWith({ SVC_VAULT_KEK: oldKek });
      try {
        const made = await call(
          before.url,
          "POST",
          "/credentials",
          { name: "venue-fix", fleet: "desk", secret: fixSecret("kept-across-keys") },
          await mfa(),
        );
        expect(made.status, made.text).toBe(201);
      } finally {
        await before.close();
      }

      const rotating = await identityWith({
        SVC_VAULT_KEK: newKek,
        SVC_VAULT_PREVIOUS_KEK: oldKek,
      });
      try {
        const read = await runnerOf(rotating, "bots").resolveCredential({
          name: "venue-fix",
          bot: "b1",
          fleet: "desk",
        });
        expect(read.secret?.secret.value).toMatchObject({ password: "kept-across-keys" });
        const stale = await call(
          rotating.url,
          "POST",
          "/admin/credentials/rewrap",
          {},
          as(await idp.sign(userClaims("user|ops", SCOPES))),
        );
        expect(stale.status).toBe(401);
        const rewrap = await call(
          rotating.url,
          "POST",
          "/admin/credentials/rewrap",
          {},
          await mfa(),
        );
        expect(rewrap.status, rewrap.text).toBe(200);
        expect(rewrap.body).toMatchObject({ rewrapped: 1 });
        const again = await call(
          rotating.url,
          "POST",
          "/admin/credentials/rewrap",
          {},
          await mfa(),
        );
        expect(again.body).toMatchObject({ current: 1 });
        expect(again.body.rewrapped ?? 0).toBe(0);
      } finally {
        await rotating.close();
      }

      const after = await identityWith({ SVC_VAULT_KEK: newKek });
      try {
        const read = await runnerOf(after, "bots").resolveCredential({
          name: "venue-fix",
          bot: "b1",
          fleet: "desk",
        });
        expect(read.secret?.secret.value).toMatchObject({ password: "kept-across-keys" });
      } finally {
        await after.close();
      }
    },
    3 * PLATFORM_START_TIMEOUT_MS,
  );
});
