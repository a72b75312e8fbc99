import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sql } from "kysely";
import { freshMfaClaims, startTestIdp, type TestIdp } from "@svc/lib/auth/testing";
import type { RunningPlatform } from "@svc/all-in-one";
import { call, startTestPlatform } from "../support/test-platform.js";
import { grantMembership } from "../support/memberships.js";
import { eventually } from "../support/until.js";

const CLAIMS = "https://svc.example/claims/";
const ALICE_INTERNAL_ID = "5b0e6a43-alice";

/** Spellings of user|alice that render like it; each once passed for a second person. */
const LOOK_ALIKES: [string, string][] = [
  ["another case", "user|Alice"],
  ["upper case", "USER|ALICE"],
  ["a trailing space", "user|alice "],
  ["a zero-width space", "user|ali\u200bce"],
  ["a zero-width joiner", "user|alice\u200d"],
  ["a word joiner", "\u2060user|alice"],
  ["a byte-order mark", "user|alice\ufeff"],
  ["full-width letters", "user|\uff41\uff4c\uff49\uff43\uff45"],
  ["a variation selector (U+FE0F)", "user|alice\ufe0f"],
  ["a Hangul filler (U+3164)", "user|alice\u3164"],
  ["a Braille blank (U+2800)", "user|alice\u2800"],
  ["Cyrillic а", "user|\u0430lice"],
  ["Cyrillic е", "user|alic\u0435"],
  ["Greek capital Alpha", "user|\u0391lice"],
  ["dotless ı", "user|al\u0131ce"],
  ["Turkish İ", "user|al\u0130ce"],
  ["a capital I for the l", "user|aIice"],
  ["a trailing dot", "user|alice."],
];

const SCOPES = [
  "read:bots",
  "write:bots",
  "submit:promotion",
  "read:promotion",
  "approve:promotion",
];

// Local users cannot spell a name two ways (x-svc-local-user takes lower-case names only), so
// the two spellings of one person come as OIDC subjects, which a provider may hand over as is.
describe("four eyes compares subjects in canonical form, on Postgres", () => {
  let idp: TestIdp;
  let p: RunningPlatform;
  let hash: string;
  // The provider's post-login hook names the internal user behind a subject, when it knows one.
  const as = async (sub: string, internalUserId?: string) => ({
    authorization: `Bearer ${await idp.sign(
      freshMfaClaims(
        sub,
        SCOPES,
        internalUserId ? { [`${CLAIMS}internal_user_id`]: internalUserId } : {},
      ),
    )}`,
  });

  beforeAll(async () => {
    idp = await startTestIdp();
    p = await startTestPlatform("postgres", {
      SVC_AUTH_PROVIDER: "oidc",
      SVC_AUTH_OIDC_ISSUER: idp.issuer,
      SVC_AUTH_OIDC_AUDIENCE: idp.audience,
    });
    await grantMembership(
      p,
      "user|alice",
      "user|bob",
      "user|alicia",
      "google-oauth2|104",
      "user|\u0430licia",
      ...LOOK_ALIKES.map(([, sub]) => sub),
    );
    hash = (
      await call(
        p.url,
        "POST",
        "/bots",
        { name: "Four eyes", kind: "trading" },
        await as("user|alice"),
      )
    ).body.spec_hash;
    await eventually(
      "the promotion service learns of the bot",
      async () =>
        (
          await sql<{
            n: number;
          }>`select count(*)::int as n from promotion.known_bot_versions`.execute(p.platform.db.db)
        ).rows[0]!.n,
      (n) => n > 0,
    );
    const submitted = await call(
      p.url,
      "POST",
      "/promotion/requests",
      {
        request_id: "fe-1",
        kind: "strategy",
        artifact: { bot_ref: "four-eyes", version: 1, version_hash: hash },
        validation: { verdict: "PASS" },
        risk: { decision: "APPROVE" },
      },
      await as("user|alice", ALICE_INTERNAL_ID),
    );
    expect(submitted.status).toBe(201);
    expect(submitted.body.status).toBe("pending");
  });
  afterAll(async () => {
    await p?.close();
    await idp?.stop();
  });

  it.each(LOOK_ALIKES)("refuses the submitter approving under %s", async (_what, sub) => {
    const res = await call(p.url, "POST", "/promotion/requests/fe-1/approve", {}, await as(sub));
    expect(res.status).toBe(403);
    expect(res.body.error.code).toBe("four_eyes_violation");
    expect(
      (await call(p.url, "GET", "/promotion/requests/fe-1", undefined, await as("user|bob"))).body
        .status,
    ).toBe("pending");
  });

  it("refuses alice approving under another provider's subject of her internal user", async () => {
    const res = await call(
      p.url,
      "POST",
      "/promotion/requests/fe-1/approve",
      {},
      await as("google-oauth2|104", ALICE_INTERNAL_ID),
    );
    expect(res.status).toBe(403);
    expect(res.body.error.code).toBe("four_eyes_violation");
  });

  it("lets another person with a like name approve", async () => {
    const res = await call(
      p.url,
      "POST",
      "/promotion/requests/fe-1/approve",
      {},
      await as("user|alicia", "7c41d2e9-alicia"),
    );
    expect(res.status).toBe(200);
    expect(res.body.status).toBe("approved");
    expect(res.body.decisions[0].actor).toBe("user|alicia");
    expect(res.body.approved_promotion).toMatch(/\S/);
  });

  it("shows the approval token to its approver, not to a look-alike of the approver", async () => {
    const read = async (sub: string) =>
      (await call(p.url, "GET", "/promotion/requests/fe-1", undefined, await as(sub))).body;
    expect((await read("user|alicia")).approved_promotion).toMatch(/\S/);
    expect((await read("user|\u0430licia")).approved_promotion ?? "").toBe("");
  });
});
