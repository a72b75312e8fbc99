/** base64url without padding (RFC 4648 §5), the encoding of every key and signature of a lease. */
export function toBase64Url(bytes: Uint8Array): string {
  return Buffer.from(bytes).toString("base64url");
}

/** The bytes of a base64url string, or undefined when it is not one (no padding, no other alphabet). */
export function fromBase64Url(text: string): Uint8Array | undefined {
  if (!/^[A-Za-z0-9_-]*$/.test(text)) return undefined;
  return new Uint8Array(Buffer.from(text, "base64url"));
}
