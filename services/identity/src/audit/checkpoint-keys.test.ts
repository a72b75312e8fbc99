import { generateKeyPairSync } from "node:crypto";
import { describe, expect, it } from "vitest";
import { signingKeyFromPem } from "../lease/index.js";
import { loadCheckpointKeys } from "./checkpoint-keys.js";

const pem = () =>
  generateKeyPairSync("ed25519").privateKey.export({ type: "pkcs8", format: "pem" }).toString();

describe("the checkpoint key an operator configures", () => {
  it("is used as given, with the trusted earlier keys after it", () => {
    const key = pem();
    const earlier = generateKeyPairSync("ed25519")
      .publicKey.export({ type: "spki", format: "pem" })
      .toString();
    const keys = loadCheckpointKeys(
      { privateKeyPem: key, trustedPublicKeysPem: earlier },
      undefined,
    );
    expect(keys.ephemeral).toBe(false);
    expect(keys.active.publicKeyId).toBe(signingKeyFromPem(key).publicKeyId);
    expect(keys.trusted).toHaveLength(2);
  });

  it("is made at start when none is set, and says so", () => {
    const keys = loadCheckpointKeys({}, undefined);
    expect([keys.ephemeral, keys.trusted.map((k) => k.publicKeyId)]).toEqual([
      true,
      [keys.active.publicKeyId],
    ]);
  });

  it("stops the start when it is the lease key or no key at all", () => {
    const lease = pem();
    expect(() =>
      loadCheckpointKeys({ privateKeyPem: lease }, signingKeyFromPem(lease).publicKeyId),
    ).toThrow(/is the lease-signing key/);
    expect(() => loadCheckpointKeys({ privateKeyPem: "not a key" }, undefined)).toThrow(
      /SVC_AUDIT_CHECKPOINT_PRIVATE_KEY_PEM holds no usable key/,
    );
  });
});
