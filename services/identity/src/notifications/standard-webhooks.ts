import { createHmac, randomBytes } from "node:crypto";

/**
 * The Standard Webhooks signing scheme (https://www.standardwebhooks.com): the secret is
 * `whsec_` + base64 of the key; the signature is `v1,` + base64 of HMAC-SHA256 over
 * `{webhook-id}.{webhook-timestamp}.{body}` with the decoded key. Small enough to own, so the
 * service needs no dependency for it; `standard-webhooks.test.ts` holds it to the spec's vector
 * and e2e receivers verify with the reference library.
 */
export const SECRET_PREFIX = "whsec_";

/** A fresh signing secret: 32 random bytes, as the spec recommends (24 to 64). */
export function newWebhookSecret(): string {
  return SECRET_PREFIX + randomBytes(32).toString("base64");
}

/** `v1,<base64>` for one message at one timestamp (seconds since the epoch). */
export function signWebhook(secret: string, id: string, timestampS: number, body: string): string {
  const key = Buffer.from(secret.startsWith(SECRET_PREFIX) ? secret.slice(6) : secret, "base64");
  const mac = createHmac("sha256", key).update(`${id}.${timestampS}.${body}`).digest("base64");
  return `v1,${mac}`;
}

/** The three headers of one attempt: a fresh timestamp (and so signature) per attempt. */
export function webhookHeaders(
  secret: string,
  id: string,
  body: string,
  nowMs: number,
): Record<string, string> {
  const timestamp = Math.floor(nowMs / 1000);
  return {
    "webhook-id": id,
    "webhook-timestamp": String(timestamp),
    "webhook-signature": signWebhook(secret, id, timestamp, body),
  };
}
