import { generateKeyPairSync } from "node:crypto";
import { describe, expect, it } from "vitest";
import { fromBase64Url } from "../license/encoding.js";
import { leasePublicKey } from "../license/public-keys.js";
import { auditHash, GENESIS_HASH, type ChainLink } from "./chain.js";
import { signCheckpoint, type SignedCheckpoint } from "./checkpoint.js";
import { verifyTrail } from "./verify-trail.js";

function keyPair() {
  const jwk = generateKeyPairSync("ed25519").privateKey.export({ format: "jwk" });
  return { ...leasePublicKey(fromBase64Url(jwk.x!)!), secretKey: fromBase64Url(jwk.d!)! };
}

function chain(n: number): ChainLink[] {
  const out: ChainLink[] = [];
  for (let seq = 1; seq <= n; seq++) {
    const fields = {
      id: `e${seq}`,
      created_at: new Date(Date.UTC(2026, 10, 27, 12, 0, seq)).toISOString(),
      service: "killswitch",
      event_type: "killswitch.engaged",
      outcome: "succeeded",
      resource: `kill_switch/k${seq}`,
      actor_user_id: "local|ops",
      actor_type: "local",
      user_id: "",
      request_id: "",
      trace_id: "",
      details: {},
      prev_hash: out.at(-1)?.hash ?? GENESIS_HASH,
      hash_format: 2 as const,
    };
    out.push({ ...fields, seq, hash: auditHash(fields) });
  }
  return out;
}

describe("verifyTrail against signed checkpoints", () => {
  const key = keyPair();
  const rows = chain(4);
  const at = (r: ChainLink, time = "2026-11-27T12:01:00.000Z") =>
    signCheckpoint({ seq: r.seq, head_hash: r.hash, time }, key);

  it("holds when every row is vouched for", async () => {
    const cps = await Promise.all(rows.map((r) => at(r)));
    const v = await verifyTrail(rows, { before: cps, after: cps }, [key]);
    expect([v.broken, v.anchoredSeq, v.checkpoints]).toEqual([undefined, 4, 4]);
  });

  it("names a checkpoint whose signature does not verify, and ignores one of an unknown key", async () => {
    const good = await Promise.all(rows.map((r) => at(r)));
    const forged: SignedCheckpoint = {
      payload: { ...good[1]!.payload, head_hash: "f".repeat(64) },
      signature: good[1]!.signature,
    };
    const stranger = await signCheckpoint(
      { seq: 3, head_hash: "e".repeat(64), time: "2026-11-27T12:02:00.000Z" },
      keyPair(),
    );
    const v = await verifyTrail(rows, { before: [], after: [...good, forged, stranger] }, [key]);
    expect([v.broken?.seq, v.broken?.problem, v.untrustedCheckpoints]).toEqual([
      2,
      "bad_checkpoint_signature",
      1,
    ]);
  });

  it("takes a checkpoint above the head read after the rows for a row appended since, not a cut", async () => {
    const cps = await Promise.all(rows.map((r) => at(r)));
    const newer = await signCheckpoint(
      { seq: 5, head_hash: "d".repeat(64), time: "2026-11-27T12:03:00.000Z" },
      key,
    );
    expect((await verifyTrail(rows, { before: cps, after: [...cps, newer] }, [key])).broken).toBe(
      undefined,
    );
    const cut = await verifyTrail(rows, { before: [...cps, newer], after: [] }, [key]);
    expect([cut.broken?.seq, cut.broken?.problem]).toEqual([5, "truncated"]);
  });
});
