import canonicalizeModule from "canonicalize";

// The package is CommonJS (module.exports = serialize) while its types declare an ES default
// export; under NodeNext the default import is the function itself at run time.
const canonicalize = canonicalizeModule as unknown as (value: unknown) => string | undefined;

/**
 * The bytes a lease signature covers: the UTF-8 of the payload in the JSON Canonicalization
 * Scheme (RFC 8785: keys sorted by UTF-16 code units, no whitespace, ECMAScript number and string
 * forms). A verifier re-derives them from the parsed lease file, so whitespace or key order in the
 * file never matters, and any change to a value does.
 *
 * @example verify(signature, canonicalBytes(lease.payload), publicKey)
 */
export function canonicalBytes(value: unknown): Uint8Array {
  const text = canonicalize(value);
  if (text === undefined) throw new TypeError("the value has no JSON form");
  return new TextEncoder().encode(text);
}
