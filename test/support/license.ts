import { execFile } from "node:child_process";
import { generateKeyPairSync } from "node:crypto";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";

/** A fresh Ed25519 key pair as PEM, made at run time: no key ever lives in the repository. */
export function ed25519Pem(): { privateKeyPem: string; publicKeyPem: string } {
  const { privateKey, publicKey } = generateKeyPairSync("ed25519");
  return {
    privateKeyPem: privateKey.export({ type: "pkcs8", format: "pem" }).toString(),
    publicKeyPem: publicKey.export({ type: "spki", format: "pem" }).toString(),
  };
}

/** A device key as the daemon keeps it: the raw seed and public key. */
export function deviceKey(): { secretKey: Uint8Array; publicKey: string } {
  const { privateKey, publicKey } = generateKeyPairSync("ed25519");
  const priv = privateKey.export({ format: "jwk" });
  const pub = publicKey.export({ format: "jwk" });
  return { secretKey: new Uint8Array(Buffer.from(priv.d!, "base64url")), publicKey: pub.x! };
}

/**
 * `openssl pkeyutl -verify -rawin`: an Ed25519 verifier that shares no code with ours. True when
 * openssl says "Signature Verified Successfully".
 */
export async function opensslVerifies(
  publicKeyPem: string,
  message: Uint8Array,
  signature: Uint8Array,
): Promise<boolean> {
  const dir = await mkdtemp(join(tmpdir(), "lease-openssl-"));
  try {
    await writeFile(join(dir, "pub.pem"), publicKeyPem);
    await writeFile(join(dir, "msg.bin"), message);
    await writeFile(join(dir, "sig.bin"), signature);
    const { stdout } = await promisify(execFile)("openssl", [
      "pkeyutl",
      "-verify",
      "-pubin",
      "-inkey",
      join(dir, "pub.pem"),
      "-rawin",
      "-in",
      join(dir, "msg.bin"),
      "-sigfile",
      join(dir, "sig.bin"),
    ]);
    return stdout.includes("Signature Verified Successfully");
  } catch {
    return false;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
