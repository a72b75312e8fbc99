import { createHash, createPublicKey, generateKeyPairSync, verify } from "node:crypto";
import { describe, expect, it } from "vitest";
import {
  canonicalBytes,
  LEASE_FORMAT,
  parseLease,
  verifyLeaseSignature,
  type LeasePayload,
} from "@svc/lib/license";
import { signingKeyFromPem } from "./keys.js";
import { signBytes, signLease } from "./sign-lease.js";

/** RFC 8032 §7.1 (Ed25519): secret key, public key, message, signature, all hex. */
const RFC8032_VECTORS = [
  {
    name: "TEST 1",
    sk: "9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60",
    pk: "d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a",
    msg: "",
    sig: "e5564300c360ac729086e2cc806e828a84877f1eb8e5d974d873e065224901555fb8821590a33bacc61e39701cf9b46bd25bf5f0595bbe24655141438e7a100b",
  },
  {
    name: "TEST 2",
    sk: "4ccd089b28ff96da9db6c346ec114e0f5b8a319f35aba624da8cf6ed4fb8a6fb",
    pk: "3d4017c3e843895a92b70aa74d1b7ebc9c982ccf2ec4968cc0cd55f12af4660c",
    msg: "72",
    sig: "92a009a9f0d4cab8720e820b5f642540a2b27b5416503f8fb3762223ebdb69da085ac1e43e15996e458f3613d0f11d8c387b2eaeb4302aeeb00d291612bb0c00",
  },
  {
    name: "TEST 3",
    sk: "c5aa8df43f9f837bedb7442f31dcb7b166d38535076f094b85ce3a2e0b4458f7",
    pk: "fc51cd8e6218a1a38da47ed00230f0580816ed13ba3303ac5deb911548908025",
    msg: "af82",
    sig: "6291d657deec24024827e69c3abe01a30ce548a284743a445e3680d7db5ac3ac18ff9b538d16f290ae67f760984dc6594a7c15e9716ed28dc027beceea1ec40a",
  },
  {
    name: "TEST SHA(abc)",
    sk: "833fe62409237b9d62ec77587520911e9a759cec1d19755b7da901b96dca3d42",
    pk: "ec172b93ad5e563bf4932c70e1245034c35467ef2efd4d64ebf819683467e2bf",
    msg: createHash("sha512").update("abc").digest("hex"),
    sig: "dc2a4459e7369633a52b1bf277839a00201009a3efbf3ecb69bea2186c26b58909351fc9ac90b3ecfdfbc7c66431e0303dca179c138ac17ad9bef1177331a704",
  },
];

/** The RFC's 32-byte secret key as the PKCS#8 PEM an operator would configure. */
function pkcs8Pem(seedHex: string): string {
  const der = Buffer.concat([
    Buffer.from("302e020100300506032b657004220420", "hex"),
    Buffer.from(seedHex, "hex"),
  ]);
  return `-----BEGIN PRIVATE KEY-----\n${der.toString("base64")}\n-----END PRIVATE KEY-----\n`;
}

const hex = (b: Uint8Array) => Buffer.from(b).toString("hex");

describe("the lease signer", () => {
  it.each(RFC8032_VECTORS)("reproduces RFC 8032 $name from the key as PEM", async (v) => {
    const key = signingKeyFromPem(pkcs8Pem(v.sk));
    expect(hex(key.publicKey)).toBe(v.pk);
    expect(hex(await signBytes(Buffer.from(v.msg, "hex"), key))).toBe(v.sig);
  });

  it("signs a lease that node:crypto verifies over its canonical bytes, and not once a byte flips", async () => {
    const { privateKey } = generateKeyPairSync("ed25519");
    const key = signingKeyFromPem(privateKey.export({ type: "pkcs8", format: "pem" }).toString());
    const payload: LeasePayload = {
      format: LEASE_FORMAT,
      lease_id: "l-1",
      deployment_id: "acme-prod",
      entitlements: { seats: 5, features: ["live_trading"] },
      serial: 1,
      issued_at: "2026-11-23T12:00:00Z",
      expires_at: "2026-11-30T12:00:00Z",
      ttl_seconds: 604800,
      grace_period_seconds: 259200,
      public_key_id: key.publicKeyId,
    };
    const lease = parseLease(JSON.stringify(await signLease(payload, key), null, 2));
    const publicKey = createPublicKey(key.publicKeyPem);
    const sig = Buffer.from(lease.signature, "base64url");
    const bytes = Buffer.from(canonicalBytes(lease.payload));
    expect(verify(null, bytes, publicKey, sig)).toBe(true);
    expect(await verifyLeaseSignature(lease, [key])).toBeUndefined();

    const at = bytes.indexOf("acme");
    bytes[at] = bytes[at]! ^ 0x01;
    expect(verify(null, bytes, publicKey, sig)).toBe(false);
    const tampered = { ...lease, payload: { ...lease.payload, serial: 2 } };
    expect(await verifyLeaseSignature(tampered, [key])).toBe("bad_signature");
    expect(await verifyLeaseSignature(lease, [])).toBe("unknown_key");
  });
});
