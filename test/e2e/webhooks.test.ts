import { randomBytes } from "node:crypto";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { Webhook } from "standardwebhooks";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunningPlatform } from "@svc/all-in-one";
import {
  BACKENDS,
  call,
  PLATFORM_START_TIMEOUT_MS,
  startTestPlatform,
  testNatsNamespace,
  testNatsUrl,
} from "../support/test-platform.js";
import { freshMfaClaims, startTestIdp, userClaims, type TestIdp } from "@svc/lib/auth/testing";
import { grantMembership } from "../support/memberships.js";
import { approvedSession, phaseOf } from "../support/paper.js";
import { eventually } from "../support/until.js";

/** What the receiver was sent: the raw body as it came, and the headers. */
interface Received {
  path: string;
  body: string;
  headers: Record<string, string>;
  at: number;
}

/**
 * A webhook receiver on loopback, run by the test: it keeps every request and answers each path
 * with the status the test sets (200 unless told otherwise).
 */
async function startReceiver() {
  const received: Received[] = [];
  const statusOf = new Map<string, number>();
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      received.push({
        path: req.url ?? "",
        body: Buffer.concat(chunks).toString(),
        headers: req.headers as Record<string, string>,
        at: Date.now(),
      });
      res.statusCode = statusOf.get(req.url ?? "") ?? 200;
      res.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    received,
    url: (path: string) => `http://127.0.0.1:${port}${path}`,
    answer: (path: string, status: number) => statusOf.set(path, status),
    to: (path: string) => received.filter((r) => r.path === path),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** Reads a server-sent event stream: each event's id, name and parsed data, as they come. */
async function openStream(url: string, headers: Record<string, string> = {}) {
  const abort = new AbortController();
  const res = await fetch(url, {
    headers: { accept: "text/event-stream", ...headers },
    signal: abort.signal,
  });
  const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = "";
  // Events are read as loose JSON and judged by expect(), as test/support/sse.ts does.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  async function next(): Promise<{ id?: string; event: string; data: any }> {
    for (;;) {
      const end = buffer.indexOf("\n\n");
      if (end >= 0) {
        const frame = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        const line = (name: string) => new RegExp(`^${name}: (.*)$`, "m").exec(frame)?.[1];
        return {
          id: line("id"),
          event: line("event") ?? "message",
          data: JSON.parse(line("data")!),
        };
      }
      const { value, done } = await reader.read();
      if (done) throw new Error("the stream ended");
      buffer += value;
    }
  }
  return {
    status: res.status,
    contentType: res.headers.get("content-type"),
    next,
    close: () => abort.abort(),
  };
}

/** Reads a stream up to the engagement of the switch `name`. */
async function nextNamed(stream: Awaited<ReturnType<typeof openStream>>, name: string) {
  for (;;) {
    const e = await stream.next();
    if (e.data?.type === "killswitch.engaged" && e.data.data?.name === name) return e;
  }
}

const MAX_ATTEMPTS = 3;
const RETRY_BASE_MS = 300;

// On Postgres the events come over the real NATS (JetStream durable consumers), as distributed.
describe.each(BACKENDS)("webhooks and the event stream, on %s", (backend) => {
  let p: RunningPlatform;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  let switches = 0;
  const engage = async () => {
    const name = `hook-${++switches}`;
    const res = await call(p.url, "PUT", `/kill-switches/${name}`, {
      scope: "fleet",
      target: `webhooks-${switches}`,
      mode: "cancel",
      reason: "webhook test",
    });
    expect(res.status, res.text).toBeLessThan(300);
    return name;
  };
  const subscribe = async (path: string, eventTypes = ["killswitch.engaged"]) => {
    const res = await call(p.url, "POST", "/webhooks/subscriptions", {
      url: receiver.url(path),
      event_types: eventTypes,
    });
    expect(res.status, res.text).toBe(201);
    return res.body as { subscription: { id: string }; secret: string };
  };

  beforeAll(async () => {
    receiver = await startReceiver();
    p = await startTestPlatform(backend, {
      ...(backend === "postgres"
        ? { SVC_NATS_URL: testNatsUrl(), SVC_NATS_NAMESPACE: testNatsNamespace() }
        : {}),
      SVC_VAULT_KEK: randomBytes(32).toString("base64"),
      SVC_WEBHOOK_ALLOW_HTTP_LOOPBACK: "true",
      SVC_WEBHOOK_POLL_INTERVAL_MS: "100",
      SVC_WEBHOOK_RETRY_BASE_MS: String(RETRY_BASE_MS),
      SVC_WEBHOOK_MAX_ATTEMPTS: String(MAX_ATTEMPTS),
      SVC_WEBHOOK_DELIVERY_TIMEOUT_MS: "2000",
    });
  }, PLATFORM_START_TIMEOUT_MS);
  afterAll(async () => {
    await p?.close();
    await receiver?.close();
  });

  it("delivers an engaged kill switch, signed so the Standard Webhooks library verifies it", async () => {
    const { subscription, secret } = await subscribe("/ok");
    expect(secret).toMatch(/^whsec_/);
    const listed = await call(p.url, "GET", "/webhooks/subscriptions");
    expect(listed.body.items.map((s: { id: string }) => s.id)).toContain(subscription.id);
    expect(listed.text).not.toContain(secret.slice(6));

    const name = await engage();
    const got = await eventually(
      "the receiver is sent the engaged switch",
      async () => receiver.to("/ok"),
      (r) => r.length > 0,
    );
    const verified = new Webhook(secret).verify(got[0]!.body, got[0]!.headers) as {
      type: string;
      data: { name: string; mode: string };
    };
    expect(verified.type).toBe("killswitch.engaged");
    expect(verified.data).toMatchObject({ name, mode: "cancel" });
    // Signed with another secret, or altered, it does not verify.
    expect(() =>
      new Webhook(`whsec_${randomBytes(32).toString("base64")}`).verify(
        got[0]!.body,
        got[0]!.headers,
      ),
    ).toThrow();
    expect(() =>
      new Webhook(secret).verify(got[0]!.body.replace(name, "forged"), got[0]!.headers),
    ).toThrow();

    // The attempt is written once the receiver has answered.
    const deliveries = await eventually(
      "the delivery reads delivered",
      () => call(p.url, "GET", `/webhooks/subscriptions/${subscription.id}/deliveries`),
      (r) => r.body.items[0]?.status !== "pending",
    );
    expect(deliveries.body.items[0]).toMatchObject({
      id: got[0]!.headers["webhook-id"],
      event_type: "killswitch.engaged",
      status: "delivered",
      attempts: 1,
    });
    expect(deliveries.body.items[0].attempt_log[0]).toMatchObject({ attempt: 1, status_code: 200 });
  });

  it("retries a failing receiver with growing waits, dead-letters it, and a replay delivers it", async () => {
    receiver.answer("/flaky", 503);
    const { subscription, secret } = await subscribe("/flaky");
    await engage();
    const deadLetters = await eventually(
      "the delivery is a dead letter",
      async () =>
        (await call(p.url, "GET", "/webhooks/dead-letters")).body.items as {
          id: string;
          subscription_id: string;
          attempts: number;
        }[],
      (items) => items.some((d) => d.subscription_id === subscription.id),
      20_000,
    );
    const dead = deadLetters.find((d) => d.subscription_id === subscription.id)!;
    expect(dead.attempts).toBe(MAX_ATTEMPTS);
    const tries = receiver.to("/flaky");
    expect(tries).toHaveLength(MAX_ATTEMPTS);
    // The same message each time (one webhook-id), each attempt signed at its own timestamp.
    expect(new Set(tries.map((t) => t.headers["webhook-id"]))).toEqual(new Set([dead.id]));
    // Waits between attempts: at least half the step (base, then twice the base), growing.
    const waits = tries.slice(1).map((t, i) => t.at - tries[i]!.at);
    expect(waits[0]).toBeGreaterThanOrEqual(RETRY_BASE_MS / 2);
    expect(waits[1]).toBeGreaterThanOrEqual(RETRY_BASE_MS);
    const log = await call(p.url, "GET", `/webhooks/subscriptions/${subscription.id}/deliveries`);
    expect(log.body.items[0]).toMatchObject({
      status: "dead",
      last_error: "the receiver answered HTTP 503",
    });
    expect(
      log.body.items[0].attempt_log.map((a: { status_code: number }) => a.status_code),
    ).toEqual([503, 503, 503]);

    receiver.answer("/flaky", 204);
    const replayed = await call(p.url, "POST", `/webhooks/deliveries/${dead.id}/replay`, {});
    expect(replayed.status, replayed.text).toBe(200);
    expect(replayed.body.status).toBe("pending");
    const again = await call(p.url, "POST", `/webhooks/deliveries/${dead.id}/replay`, {});
    expect(again.status).toBe(409);
    expect(again.body.error.code).toBe("webhook_delivery_not_dead");
    await eventually(
      "the replay is delivered",
      async () => receiver.to("/flaky"),
      (r) => r.length === MAX_ATTEMPTS + 1,
    );
    const last = receiver.to("/flaky").at(-1)!;
    expect(last.headers["webhook-id"]).toBe(dead.id);
    expect(new Webhook(secret).verify(last.body, last.headers)).toMatchObject({
      type: "killswitch.engaged",
    });
    await eventually(
      "the delivery reads delivered",
      async () =>
        (await call(p.url, "GET", `/webhooks/subscriptions/${subscription.id}/deliveries`)).body
          .items[0].status,
      (s) => s === "delivered",
    );
  }, 40_000);

  it("delivers a promotion's approval and a bot's halt under a kill switch", async () => {
    const { secret } = await subscribe("/desk", ["promotion.approved", "bot.halted"]);
    const fleet = `desk-${backend}`;
    await approvedSession(p, `hooked-${backend}`, fleet);
    await eventually(
      "the bot runs",
      () => phaseOf(p, `hooked-${backend}`),
      (ph) => ph === "Running",
    );
    const halt = await call(p.url, "PUT", `/kill-switches/desk-${backend}`, {
      scope: "fleet",
      target: fleet,
      mode: "cancel",
      reason: "webhook test",
    });
    expect(halt.status, halt.text).toBeLessThan(300);
    const types = await eventually(
      "the receiver hears of the approval and the halt",
      async () =>
        receiver.to("/desk").map(
          (r) =>
            new Webhook(secret).verify(r.body, r.headers) as {
              type: string;
              data: Record<string, unknown>;
            },
        ),
      (events) => events.some((e) => e.type === "bot.halted"),
      20_000,
    );
    const botId = (await call(p.url, "GET", `/bots/hooked-${backend}`)).body.id;
    expect(types.find((e) => e.type === "promotion.approved")?.data).toMatchObject({
      bot_ref: botId,
      approver: "local|bob",
    });
    expect(types.find((e) => e.type === "bot.halted")?.data).toMatchObject({ bot_id: botId });
    await call(p.url, "DELETE", `/kill-switches/desk-${backend}`);
  }, 60_000);

  it("refuses internal targets, unknown and unbuilt event types", async () => {
    for (const url of [
      "https://169.254.169.254/latest/meta-data",
      "https://10.0.0.8/hook",
      "https://[::ffff:192.168.1.1]/",
      "http://hooks.example.com/",
    ]) {
      const res = await call(p.url, "POST", "/webhooks/subscriptions", {
        url,
        event_types: ["killswitch.engaged"],
      });
      expect(res.status, url).toBe(400);
      expect(res.body.error).toMatchObject({
        code: "webhook_url_refused",
        details: { field: "url" },
      });
    }
    const unknown = await call(p.url, "POST", "/webhooks/subscriptions", {
      url: "https://hooks.example.com/",
      event_types: ["nope"],
    });
    expect(unknown.status).toBe(400);
    expect(unknown.body.error.code).toBe("unknown_event_type");
    const unbuilt = await call(p.url, "POST", "/webhooks/subscriptions", {
      url: "https://hooks.example.com/",
      event_types: ["run.failed"],
    });
    expect(unbuilt.status).toBe(501);
    expect(unbuilt.body.error.code).toBe("event_type_not_built");
    const missing = await call(
      p.url,
      "GET",
      "/webhooks/subscriptions/00000000-0000-4000-8000-000000000000/deliveries",
    );
    expect(missing.status).toBe(404);
  });

  it("streams the same events as server-sent events, and resumes after Last-Event-ID", async () => {
    const stream = await openStream(`${p.url}/events/stream`);
    expect(stream.status).toBe(200);
    expect(stream.contentType).toContain("text/event-stream");
    expect((await stream.next()).event).toBe("ready");
    const first = await engage();
    // Events of the tests before may still be on their way: read on to this test's own.
    const seen = await nextNamed(stream, first);
    expect(seen).toMatchObject({
      event: "notification",
      data: { type: "killswitch.engaged", data: { name: first } },
    });
    expect(seen.id).toBe(seen.data.stream_id);
    stream.close();

    const second = await engage();
    // A client that reconnects with the last id it saw misses nothing in between.
    const resumed = await openStream(`${p.url}/events/stream`, { "last-event-id": seen.id! });
    expect((await resumed.next()).data).toMatchObject({ resumed_after: seen.id });
    const caughtUp = await nextNamed(resumed, second);
    expect(caughtUp.data).toMatchObject({ type: "killswitch.engaged", data: { name: second } });
    expect(Number(caughtUp.id)).toBeGreaterThan(Number(seen.id));
    resumed.close();

    // Without Accept: text/event-stream, what is there after the id, at once, as JSON.
    const polled = await call(p.url, "GET", `/events/stream?last_event_id=${seen.id}`);
    expect(polled.status, polled.text).toBe(200);
    expect(
      polled.body.events.map(
        (e: { notification?: { data: { name: string } } }) => e.notification?.data.name,
      ),
    ).toContain(second);
  });
});

describe("webhooks and the stream under OIDC: orgs and scopes", () => {
  let p: RunningPlatform;
  let idp: TestIdp;
  const NS = "https://svc.example/claims/";
  const token = async (sub: string, scopes: string[], org: string, mfa = false) => ({
    authorization: `Bearer ${await idp.sign(
      (mfa ? freshMfaClaims : userClaims)(sub, scopes, { [`${NS}org_id`]: org }),
    )}`,
  });
  const HOOKS = ["read:webhooks", "write:webhooks"];

  beforeAll(async () => {
    idp = await startTestIdp();
    p = await startTestPlatform("pglite", {
      SVC_AUTH_PROVIDER: "oidc",
      SVC_AUTH_OIDC_ISSUER: idp.issuer,
      SVC_AUTH_OIDC_AUDIENCE: idp.audience,
      SVC_VAULT_KEK: randomBytes(32).toString("base64"),
      SVC_WEBHOOK_POLL_INTERVAL_MS: "100",
    });
    await grantMembership(p, "user|ana", "user|ben", "user|cy", "user|ops");
  }, PLATFORM_START_TIMEOUT_MS);
  afterAll(async () => {
    await p?.close();
    await idp?.stop();
  });

  it("keeps an org's subscriptions to that org, and refuses types the caller may not read", async () => {
    const ana = await token("user|ana", [...HOOKS, "read:killswitch"], "org-a");
    const ben = await token("user|ben", [...HOOKS, "read:killswitch"], "org-b");
    const body = { url: "https://hooks.example.com/a", event_types: ["killswitch.engaged"] };
    const made = await call(p.url, "POST", "/webhooks/subscriptions", body, ana);
    expect(made.status, made.text).toBe(201);
    const id = made.body.subscription.id;
    expect(made.body.subscription.org_id).toBe("org-a");

    const theirs = await call(p.url, "GET", "/webhooks/subscriptions", undefined, ben);
    expect(theirs.body.items).toEqual([]);
    const del = await call(p.url, "DELETE", `/webhooks/subscriptions/${id}`, undefined, ben);
    expect(del.status).toBe(404);
    const reads = await call(
      p.url,
      "GET",
      `/webhooks/subscriptions/${id}/deliveries`,
      undefined,
      ben,
    );
    expect(reads.status).toBe(404);

    const cy = await token("user|cy", [...HOOKS, "read:promotion"], "org-a");
    const refused = await call(p.url, "POST", "/webhooks/subscriptions", body, cy);
    expect(refused.status).toBe(403);
    expect(refused.body.error).toMatchObject({
      code: "missing_scope",
      details: { scope: "read:killswitch" },
    });
    const noScope = await call(
      p.url,
      "GET",
      "/webhooks/subscriptions",
      undefined,
      await token("user|cy", ["read:promotion"], "org-a"),
    );
    expect(noScope.status).toBe(403);
  });

  it("streams a kill switch's engagement to who may read kill switches, and not to others", async () => {
    const reader = await openStream(
      `${p.url}/events/stream`,
      await token("user|ana", ["read:killswitch"], "org-a"),
    );
    const outsider = await openStream(
      `${p.url}/events/stream`,
      await token("user|cy", ["read:promotion"], "org-a"),
    );
    expect((await reader.next()).event).toBe("ready");
    expect((await outsider.next()).event).toBe("ready");
    const engaged = await call(
      p.url,
      "PUT",
      "/kill-switches/oidc-hook",
      { scope: "fleet", target: "oidc", mode: "cancel", reason: "scoped stream" },
      await token("user|ops", ["halt:platform"], "org-a", true),
    );
    expect(engaged.status, engaged.text).toBeLessThan(300);
    expect((await nextNamed(reader, "oidc-hook")).data.type).toBe("killswitch.engaged");
    reader.close();
    // The outsider's stream stays silent: it polls the same log, its filter leaves the event out.
    const polled = await call(
      p.url,
      "GET",
      "/events/stream?last_event_id=0",
      undefined,
      await token("user|cy", ["read:promotion"], "org-a"),
    );
    expect(polled.body.events).toEqual([{ ready: { resumed_after: "0" } }]);
    outsider.close();
  });
});
