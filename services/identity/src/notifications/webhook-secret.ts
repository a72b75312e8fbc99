import { randomUUID } from "node:crypto";
import { open, seal, EnvelopeError, type Sealed } from "../vault/envelope.js";
import type { KekRing } from "../vault/kek.js";
import { newWebhookSecret } from "./standard-webhooks.js";

/**
 * A subscription's signing secret in the credentials vault's envelope: the HMAC needs the secret
 * itself, so it is sealed (not hashed) under SVC_VAULT_KEK, bound to the subscription's id so an
 * envelope copied onto another subscription does not open.
 */
const at = (subscriptionId: string) => ({ credentialId: `webhook:${subscriptionId}`, version: 1 });

export function sealNewWebhookSecret(ring: Extract<KekRing, { on: true }>): {
  id: string;
  secret: string;
  sealed: Sealed;
} {
  const id = randomUUID();
  const secret = newWebhookSecret();
  return { id, secret, sealed: seal(Buffer.from(secret), at(id), ring.active) };
}

export function openWebhookSecret(
  ring: KekRing,
  row: { subscription_id: string; kek_id: string; wrapped_key: Buffer; ciphertext: Buffer },
): { ok: true; secret: string } | { ok: false; why: string } {
  if (!ring.on) return { ok: false, why: `the vault is off: ${ring.why}` };
  try {
    const keks = [ring.active, ...(ring.previous ? [ring.previous] : [])];
    const plain = open(
      { kekId: row.kek_id, wrappedKey: row.wrapped_key, ciphertext: row.ciphertext },
      at(row.subscription_id),
      keks,
    );
    return { ok: true, secret: plain.toString() };
  } catch (err) {
    if (err instanceof EnvelopeError) return { ok: false, why: `signing secret: ${err.message}` };
    throw err;
  }
}
