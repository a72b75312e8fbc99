import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { EnvelopeError, fingerprint, open, rewrap, seal } from "./envelope.js";
import { kekRingFrom, type Kek } from "./kek.js";

const newKek = (): Kek => {
  const ring = kekRingFrom({ kek: randomBytes(32).toString("base64") });
  if (!ring.on) throw new Error(ring.why);
  return ring.active;
};
const secret = Buffer.from("fix-password-\u00e9");
const at = { credentialId: "6f1c2b1e-0000-4000-8000-000000000001", version: 1 };

describe("envelope encryption of a credential's secret", () => {
  it("opens what it sealed, and the stored bytes hold neither the secret nor the data key", () => {
    const kek = newKek();
    const sealed = seal(secret, at, kek);
    expect(open(sealed, at, [kek]).toString()).toBe(secret.toString());
    expect(sealed.ciphertext.includes(secret)).toBe(false);
    expect(sealed.kekId).toBe(kek.id);
  });

  it("refuses an envelope moved onto another credential or replayed as another version", () => {
    const kek = newKek();
    const sealed = seal(secret, at, kek);
    const other = { ...at, credentialId: "6f1c2b1e-0000-4000-8000-000000000002" };
    expect(() => open(sealed, other, [kek])).toThrow(EnvelopeError);
    expect(() => open(sealed, { ...at, version: 2 }, [kek])).toThrow(EnvelopeError);
  });

  it("refuses one flipped bit of the ciphertext or of the wrapped key", () => {
    const kek = newKek();
    const sealed = seal(secret, at, kek);
    const flipped = Buffer.from(sealed.ciphertext);
    flipped[14]! ^= 1;
    expect(() => open({ ...sealed, ciphertext: flipped }, at, [kek])).toThrow(
      /does not authenticate/,
    );
    const wrapped = Buffer.from(sealed.wrappedKey);
    wrapped[20]! ^= 1;
    expect(() => open({ ...sealed, wrappedKey: wrapped }, at, [kek])).toThrow(EnvelopeError);
    expect(() => open({ ...sealed, ciphertext: Buffer.alloc(3) }, at, [kek])).toThrow(
      EnvelopeError,
    );
  });

  it("needs the key-encryption key that wrapped it; a rewrap moves it to the new one", () => {
    const old = newKek();
    const next = newKek();
    const sealed = seal(secret, at, old);
    expect(() => open(sealed, at, [next])).toThrow(/does not hold/);
    const moved = rewrap(sealed, at, [next, old], next);
    expect(moved.kekId).toBe(next.id);
    expect(moved.ciphertext.equals(sealed.ciphertext)).toBe(true);
    expect(open(moved, at, [next]).toString()).toBe(secret.toString());
    expect(() => open(moved, at, [old])).toThrow(EnvelopeError);
  });

  it("fingerprints a secret the same way each time, and differently under another key", () => {
    const kek = newKek();
    expect(fingerprint(secret, kek)).toBe(fingerprint(Buffer.from(secret), kek));
    expect(fingerprint(secret, kek)).not.toBe(fingerprint(Buffer.from("other"), kek));
    expect(fingerprint(secret, kek)).not.toBe(fingerprint(secret, newKek()));
  });
});

describe("the key-encryption key from the environment", () => {
  it("is off without SVC_VAULT_KEK, and says so", () => {
    const ring = kekRingFrom({});
    expect(ring.on).toBe(false);
    expect(ring.on ? "" : ring.why).toMatch(/SVC_VAULT_KEK is not set/);
  });

  it("refuses a value that is not 32 bytes rather than start with a weak or mistyped key", () => {
    expect(() => kekRingFrom({ kek: Buffer.alloc(16).toString("base64") })).toThrow(
      /exactly 32 bytes/,
    );
    expect(() =>
      kekRingFrom({ kek: randomBytes(32).toString("base64"), previousKek: "short" }),
    ).toThrow(/SVC_VAULT_PREVIOUS_KEK/);
  });
});
